// Request logging with the API key removed. Keys reach us in the X-API-Key header, in the
// `api_key` query parameter, in the `key` query parameter (the Census Data API's, on /data/…) and
// (MCP, dashboard) in Authorization; all are redacted before a line is written, whether the logger
// was built here or injected by the caller. Query parameters go through the one rule,
// redactSecrets (src/presentation/credentials.ts), which reads names decoded as the query parser
// does: in the request line's URL, in error messages and stacks, and, on the logger built here,
// over the whole of every line as it is written (the shutdown log's in-flight URLs included).
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../../config.js';
import { REDACTED, redactSecrets } from '../../presentation/credentials.js';
import { log } from '../../verbs/lifecycle/lifecycle.js';

export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  'query.api_key',
  'req.query.api_key',
  'query.key',
  'req.query.key',
];

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  headers?: Record<string, unknown>;
  socket?: { remotePort?: number };
}

export const serializers = {
  req(req: LoggedRequest) {
    return {
      method: req.method,
      url: redactSecrets(req.url),
      host: req.host,
      remoteAddress: req.ip,
      userAgent: req.headers?.['user-agent'],
    };
  },
  res(reply: { statusCode?: number }) {
    return { statusCode: reply.statusCode };
  },
  err(err: Error) {
    const out = pino.stdSerializers.err(err);
    // A framework error may quote the URL it failed on.
    return { ...out, message: redactSecrets(out.message), stack: redactSecrets(out.stack) };
  },
};

const redact: LoggerOptions['redact'] = { paths: REDACT_PATHS, censor: REDACTED };

/** Lines are written in batches of at least this many bytes, or every LOG_FLUSH_MS. */
const LOG_BATCH_BYTES = 4096;
const LOG_FLUSH_MS = 250;

/**
 * The service's logger. Without an injected destination it writes to stdout asynchronously: pino's
 * default is a synchronous write(2) per line, two lines per request, which cost 6–9% of the CPU of
 * a busy server. Lines are batched (LOG_BATCH_BYTES) and a timer writes a partial batch
 * within LOG_FLUSH_MS, so a quiet server's lines still appear at once. src/server.ts waits for
 * the batch to be written (logger.flush) before a graceful shutdown exits, and pino writes what is
 * left synchronously on any other exit, so no line is lost; only a SIGKILL can drop the lines of
 * the last LOG_FLUSH_MS.
 */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: config.LOG_LEVEL,
    redact,
    serializers,
    base: undefined,
    // The last net: every line as written, whatever field carries a URL (drain.ts's in-flight list).
    hooks: { streamWrite: redactSecrets },
  };
  if (destination) return pino(options, destination);
  const stdout = pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES });
  const timer = setInterval(() => {
    try {
      stdout.flush();
    } catch {
      clearInterval(timer); // closed: nothing more to write
    }
  }, LOG_FLUSH_MS).unref();
  return pino(options, stdout);
}

/** Apply the redaction and serializers to a logger we did not build (tests, embedding). */
export function hardenLogger(logger: Logger): Logger {
  return logger.child({}, { redact, serializers });
}

/**
 * One line per request instead of fastify's two ("incoming request", then "request completed"):
 * the completed line carries the request (method, redacted URL, host, address, user agent), the
 * status, the response time and the request id, which is everything the incoming line had. Half
 * the lines halve the logging cost per request (pino was ~4.6% of a small request's
 * CPU). A request that never completes is still named by the shutdown log (drain.ts) and by the
 * error lines of the code that failed it.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    // The lifecycle's log phase (src/verbs/lifecycle/lifecycle.ts), when the response has ended.
    const line = { req: request, res: reply, responseTime: reply.elapsedTime };
    log(reply.log, line, error ? 'request errored' : 'request completed', error ?? undefined);
  }
}
