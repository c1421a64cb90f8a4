// Everything that can go wrong in a request becomes an AppError here, and every AppError becomes
// one RFC 9457 problem body. Nothing else is ever written to a client on failure: unknown
// exceptions turn into a generic 500 so stack traces, SQL and file paths never leak.
import { AppError, boundText, isAppError, slugOf, type ErrorCode, type FieldError } from '../domain/errors.js';
import { validationError, type SchemaIssue } from '../domain/validation.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  request_id: string;
  instance: string | null;
  errors: FieldError[] | null;
  [extension: string]: unknown;
}

/**
 * The most a problem body's members may hold, whatever raised the error: where the input is quoted
 * (quoteInput, MAX_QUOTED_INPUT) these are never reached; they bound what a raise site forgot to
 * quote, so no body mirrors a long input back (a 12,000-character parameter name came back four
 * times, 48 KB).
 */
export const MAX_DETAIL = 2_000;
export const MAX_MEMBER = 300;

function boundedExtension(v: unknown): unknown {
  if (typeof v === 'string') return boundText(v, MAX_MEMBER);
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? boundText(x, MAX_MEMBER) : x));
  return v;
}

export function problemBody(err: AppError, errorsUrl: string, requestId: string, path: string): ProblemBody {
  const extensions = Object.fromEntries(Object.entries(err.extensions).map(([k, v]) => [k, boundedExtension(v)]));
  return {
    // Extensions first so they can never overwrite the standard members.
    ...extensions,
    type: `${errorsUrl.replace(/\/$/, '')}/${slugOf(err.code)}`,
    title: err.title,
    status: err.status,
    detail: boundText(err.detail, MAX_DETAIL),
    request_id: requestId,
    instance: err.instance ?? path,
    errors: err.errors?.map((e) => ({ ...e, field: boundText(e.field, MAX_MEMBER), message: boundText(e.message, MAX_MEMBER) })) ?? null,
  };
}

const CONTEXT_NAMES: Record<string, string> = { querystring: 'query', params: 'path', body: 'body', headers: 'header' };

const FRAMEWORK_CODES: Record<string, { code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'validation-error', detail: 'The request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'validation-error', detail: 'The request body is empty but Content-Type says JSON.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload-too-large', detail: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported-media-type', detail: 'Unsupported Content-Type; send application/json.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'validation-error', detail: 'Content-Length does not match the body.' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'unsupported-media-type', detail: 'The Content-Type header is malformed.' },
  FST_ERR_BAD_URL: { code: 'bad-request', detail: 'The request path is not validly percent-encoded (UTF-8).' },
  FST_ERR_MAX_PARAM_LENGTH: { code: 'uri-too-long', detail: 'A path segment is longer than 100 characters.' },
  FST_ERR_HANDLER_TIMEOUT: {
    code: 'dependency-unavailable',
    detail: 'The request did not complete in time; retry with backoff or narrow the request.',
  },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'bad-request', detail: 'The request could not be routed.' },
};

/**
 * SQLite failures that mean "the accounts database cannot be used right now" (disk full,
 * read-only, I/O error, locked past busy_timeout, damaged file, unwritable WAL index), as opposed
 * to a bug such as a constraint violation: 503, retry with backoff.
 */
const SQLITE_UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN|CORRUPT|NOTADB|BUSY|LOCKED|PERM|PROTOCOL|NOLFS|AUTH)/;
/** The PostgreSQL store's own code for an unreachable or refusing server (src/store/accounts/postgres/store.ts). */
const OTHER_UNAVAILABLE = new Set(['ACCOUNTS_UNAVAILABLE']);

export function isStoreUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (SQLITE_UNAVAILABLE.test(code) || OTHER_UNAVAILABLE.has(code));
}

export interface FrameworkError {
  code?: string;
  statusCode?: number;
  validation?: SchemaIssue[];
  validationContext?: string;
}

/**
 * Map any thrown value to an AppError. `raw` returns the unvalidated input of a validation
 * context, used to tell a missing parameter from a malformed one. Returns `unexpected: true` when
 * the error was not anticipated, so the caller logs it at error level.
 */
export function toAppError(err: unknown, raw: (context: string | undefined) => unknown): { error: AppError; unexpected: boolean } {
  if (isAppError(err)) return { error: err, unexpected: err.status >= 500 && err.code === 'internal-error' };
  const fe = (err ?? {}) as FrameworkError;
  if (Array.isArray(fe.validation) && fe.validation.length > 0) {
    return {
      error: validationError(
        fe.validation,
        CONTEXT_NAMES[fe.validationContext ?? ''] ?? fe.validationContext ?? 'request',
        raw(fe.validationContext),
      ),
      unexpected: false,
    };
  }
  if (isStoreUnavailable(err)) {
    return {
      error: new AppError('dependency-unavailable', 'The accounts database is temporarily unavailable; retry with backoff.', {
        cause: err,
      }),
      unexpected: false,
    };
  }
  const known = fe.code ? FRAMEWORK_CODES[fe.code] : undefined;
  if (known) return { error: new AppError(known.code, known.detail), unexpected: false };
  // Other framework 4xx errors carry safe, fixed messages but we still do not echo them verbatim.
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 413) return { error: new AppError('payload-too-large', 'The request is too large.'), unexpected: false };
    if (fe.statusCode === 415) return { error: new AppError('unsupported-media-type', 'Unsupported Content-Type.'), unexpected: false };
    if (fe.statusCode === 404) return { error: new AppError('not-found', 'Resource not found.'), unexpected: false };
    if (fe.statusCode === 408)
      return { error: new AppError('request-timeout', 'The request was not received in time.'), unexpected: false };
    if (fe.statusCode === 414) return { error: new AppError('uri-too-long', 'The request URI is too long.'), unexpected: false };
    if (fe.statusCode === 431) return { error: new AppError('headers-too-large', 'The request headers are too large.'), unexpected: false };
    return { error: new AppError('bad-request', 'The request could not be processed as sent.'), unexpected: false };
  }
  return {
    error: new AppError('internal-error', 'An unexpected error occurred. Quote the request_id when contacting support.'),
    unexpected: true,
  };
}
