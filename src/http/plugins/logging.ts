// Request logging with the API key removed. Keys reach us in the X-API-Key header, in the
// `api_key` query parameter and (MCP, dashboard) in Authorization; all three are redacted before a
// line is written, whether the logger was built here or injected by the caller.
import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../../config.js';

const REDACTED = '[REDACTED]';

export const REDACT_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers.authorization',
  'req.headers.cookie',
  'headers["x-api-key"]',
  'headers.authorization',
  'query.api_key',
  'req.query.api_key',
];

/** Replace the value of `api_key` in a URL or path+query, keeping everything else readable. */
export function redactUrl(url: string | undefined): string | undefined {
  if (url === undefined) return url;
  return url.replace(/([?&;]api_key=)[^&#;]*/gi, `$1${REDACTED}`);
}

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
      url: redactUrl(req.url),
      host: req.host,
      remoteAddress: req.ip,
      userAgent: req.headers?.['user-agent'],
    };
  },
  res(reply: { statusCode?: number }) {
    return { statusCode: reply.statusCode };
  },
  err: pino.stdSerializers.err,
};

const redact: LoggerOptions['redact'] = { paths: REDACT_PATHS, censor: REDACTED };

/**
 * The service's logger. Without an injected destination it writes to stdout asynchronously: pino's
 * default is a synchronous write(2) per line, two lines per request, which cost 6–9% of the CPU of
 * a busy server (issue 13). Lines queue in memory while a write is in flight and go out together
 * with the next one; nothing is held back waiting for more (minLength 0), so a quiet server's
 * lines appear at once. On exit pino writes what is queued synchronously, and src/server.ts waits
 * for the queue (logger.flush) before a graceful shutdown exits, so no line is lost; only a
 * SIGKILL can drop what was queued at that instant.
 */
export function createLogger(config: Pick<Config, 'LOG_LEVEL'>, destination?: DestinationStream): Logger {
  const options: LoggerOptions = { level: config.LOG_LEVEL, redact, serializers, base: undefined };
  return pino(options, destination ?? pino.destination({ dest: 1, sync: false, minLength: 0 }));
}

/** Apply the redaction and serializers to a logger we did not build (tests, embedding). */
export function hardenLogger(logger: Logger): Logger {
  return logger.child({}, { redact, serializers });
}
