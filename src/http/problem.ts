// Everything that can go wrong in a request becomes an AppError here, and every AppError becomes
// one RFC 9457 problem body. Nothing else is ever written to a client on failure: unknown
// exceptions turn into a generic 500 so stack traces, SQL and file paths never leak.
import { AppError, isAppError, slugOf, type ErrorCode, type FieldError } from '../domain/errors.js';

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

export function problemBody(err: AppError, errorsUrl: string, requestId: string, path: string): ProblemBody {
  return {
    // Extensions first so they can never overwrite the standard members.
    ...err.extensions,
    type: `${errorsUrl.replace(/\/$/, '')}/${slugOf(err.code)}`,
    title: err.title,
    status: err.status,
    detail: err.detail,
    request_id: requestId,
    instance: err.instance ?? path,
    errors: err.errors ?? null,
  };
}

// Validation types that mean "the parameter could not be read as its declared type". Any of these
// makes the whole response 422; otherwise a schema failure is a 400 (well-typed but unacceptable
// value). docs/errors.md states the rule.
const UNREADABLE = new Set(['missing', 'int_parsing', 'float_parsing', 'bool_parsing', 'string_type', 'list_type', 'dict_type', 'enum']);

const CONTEXT_NAMES: Record<string, string> = { querystring: 'query', params: 'path', body: 'body', headers: 'header' };

interface SchemaIssue {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

function valueAt(root: unknown, segments: string[]): unknown {
  let cur = root;
  for (const s of segments) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[s];
  }
  return cur;
}

function typeOfIssue(issue: SchemaIssue, raw: unknown): string {
  const p = issue.params ?? {};
  const nested = p.params as Record<string, unknown> | undefined;
  if (typeof nested?.type === 'string') return nested.type;
  // `?geo=` is how forms and careless clients say "no value": report it as missing, whatever check failed.
  if (raw === '') return 'missing';
  // Any check that fails on an absent value (a union, a preprocess) means the value is missing.
  if (raw === undefined) return 'missing';
  switch (issue.keyword) {
    case 'invalid_type': {
      if (raw === undefined) return 'missing';
      const expected = String(p.expected ?? '');
      if (expected === 'int') return 'int_parsing';
      if (expected === 'number') return 'float_parsing';
      if (expected === 'boolean') return 'bool_parsing';
      if (expected === 'array') return 'list_type';
      if (expected === 'object') return 'dict_type';
      return 'string_type';
    }
    case 'invalid_value':
      return p.expected === 'stringbool' ? 'bool_parsing' : 'enum';
    case 'too_small':
      return p.origin === 'string' ? 'string_too_short' : p.origin === 'array' ? 'too_short' : 'greater_than_equal';
    case 'too_big':
      return p.origin === 'string' ? 'string_too_long' : p.origin === 'array' ? 'too_long' : 'less_than_equal';
    case 'invalid_format':
      return 'string_pattern_mismatch';
    case 'unrecognized_keys':
      return 'extra_forbidden';
    case 'not_multiple_of':
      return 'multiple_of';
    default:
      return 'value_error';
  }
}

function messageOf(type: string, issue: SchemaIssue, field: string): string {
  if (type === 'missing') return `Field required: ${field.split(' → ').pop()}`;
  if (type === 'int_parsing') return 'Input should be a valid integer';
  if (type === 'float_parsing') return 'Input should be a valid number';
  if (type === 'bool_parsing') return 'Input should be a valid boolean (true or false)';
  return issue.message ?? 'Invalid value';
}

/** Turn fastify's schema-validation failure (zod issues) into the spec's 422/400 validation-error. */
export function validationError(issues: SchemaIssue[], context: string | undefined, raw: unknown): AppError {
  const where = CONTEXT_NAMES[context ?? ''] ?? context ?? 'request';
  const errors: FieldError[] = issues.map((issue) => {
    const segments = (issue.instancePath ?? '').split('/').filter(Boolean);
    const type = typeOfIssue(issue, valueAt(raw, segments));
    const field = [where, ...segments].join(' → ');
    return { field, message: messageOf(type, issue, field), type };
  });
  const unreadable = errors.some((e) => UNREADABLE.has(e.type));
  const detail = errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  return new AppError(unreadable ? 'unprocessable-request' : 'validation-error', detail, { errors });
}

const FRAMEWORK_CODES: Record<string, { code: ErrorCode; detail: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'validation-error', detail: 'The request body is not valid JSON.' },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'validation-error', detail: 'The request body is empty but Content-Type says JSON.' },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: 'payload-too-large', detail: 'The request body is too large.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: { code: 'unsupported-media-type', detail: 'Unsupported Content-Type; send application/json.' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'validation-error', detail: 'Content-Length does not match the body.' },
  FST_ERR_CTP_INVALID_TYPE: { code: 'unsupported-media-type', detail: 'The Content-Type header is malformed.' },
  FST_ERR_BAD_URL: { code: 'validation-error', detail: 'The request URL is malformed.' },
  FST_ERR_HANDLER_TIMEOUT: { code: 'dependency-unavailable', detail: 'The request did not complete in time; retry with backoff or narrow the request.' },
  FST_ERR_ASYNC_CONSTRAINT: { code: 'validation-error', detail: 'The request could not be routed.' },
};

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
    return { error: validationError(fe.validation, fe.validationContext, raw(fe.validationContext)), unexpected: false };
  }
  const known = fe.code ? FRAMEWORK_CODES[fe.code] : undefined;
  if (known) return { error: new AppError(known.code, known.detail), unexpected: false };
  // Other framework 4xx errors carry safe, fixed messages but we still do not echo them verbatim.
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    if (fe.statusCode === 413) return { error: new AppError('payload-too-large', 'The request is too large.'), unexpected: false };
    if (fe.statusCode === 415) return { error: new AppError('unsupported-media-type', 'Unsupported Content-Type.'), unexpected: false };
    if (fe.statusCode === 404) return { error: new AppError('not-found', 'Resource not found.'), unexpected: false };
    return { error: new AppError('validation-error', 'The request could not be processed as sent.'), unexpected: false };
  }
  return {
    error: new AppError('internal-error', 'An unexpected error occurred. Quote the request_id when contacting support.'),
    unexpected: true,
  };
}
