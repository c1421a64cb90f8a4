// The closed catalogue of problem types the service can return (RFC 9457 problem details).
// Every error a verb raises is an AppError with one of these codes; transports (HTTP, MCP, CLI)
// render it. Nothing else may reach a client: unknown exceptions become `internal-error`.

export const ERROR_CATALOGUE = {
  'validation-error': { status: 400, title: 'Invalid request parameter' },
  // Malformed HTTP that never reached a route (bad Content-Length, bad percent-encoding, …).
  'bad-request': { status: 400, title: 'Malformed request' },
  // The spec uses the one slug `validation-error` for both 400 (bad value) and 422 (semantically
  // invalid: missing parameter, wrong type); the 422 flavour carries the `errors` array.
  'unprocessable-request': { status: 422, title: 'Invalid request parameter', slug: 'validation-error' },
  'invalid-vintage': { status: 400, title: 'Vintage not supported' },
  'invalid-dataset': { status: 400, title: 'Dataset not recognized' },
  'invalid-geo-format': { status: 400, title: 'Geography specifier is malformed' },
  'unsupported-child-type': { status: 400, title: 'Child type not supported for this parent' },
  'ambiguous-geography-name': { status: 400, title: 'Geography name is ambiguous' },
  'missing-api-key': { status: 401, title: 'API key required' },
  'invalid-api-key': { status: 401, title: 'API key is invalid or revoked' },
  'invalid-token': { status: 401, title: 'Sign-in token is invalid' },
  'tos-acceptance-required': { status: 403, title: 'Terms of service acceptance required' },
  'feature-requires-upgrade': { status: 403, title: 'Feature requires a higher plan' },
  forbidden: { status: 403, title: 'Forbidden' },
  'not-found': { status: 404, title: 'Resource not found' },
  'variable-not-found': { status: 404, title: 'Variable not found' },
  'geography-not-found': { status: 404, title: 'Geography not found' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  'not-acceptable': { status: 406, title: 'Not acceptable' },
  'request-timeout': { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  'payload-too-large': { status: 413, title: 'Result too large' },
  'uri-too-long': { status: 414, title: 'URI too long' },
  'unsupported-media-type': { status: 415, title: 'Unsupported media type' },
  'headers-too-large': { status: 431, title: 'Request header fields too large' },
  'rate-limit-exceeded': { status: 429, title: 'Rate limit exceeded' },
  'internal-error': { status: 500, title: 'Internal server error' },
  'dependency-unavailable': { status: 503, title: 'A dependency is unavailable' },
  'feature-unavailable': { status: 503, title: 'Feature temporarily unavailable' },
} as const satisfies Record<string, { status: number; title: string; slug?: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/**
 * The most of a client's own input an error repeats (in `detail` or a member such as `geo`): enough
 * to recognise what was sent, never a copy of a long value sent back whole.
 */
export const MAX_QUOTED_INPUT = 100;
/** How many items of a client's list an error names; the rest are counted. */
export const MAX_QUOTED_ITEMS = 10;

/**
 * The one truncation helper: `text` cut to `max` characters (code points, so a cut never splits a
 * surrogate pair), the last one an ellipsis when anything was cut.
 */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${Array.from(text.slice(0, max))
    .slice(0, max - 1)
    .join('')}…`;
}

/** A client's input as an error may repeat it: cut to MAX_QUOTED_INPUT characters with an ellipsis. */
export function quoteInput(input: string): string {
  return boundText(input, MAX_QUOTED_INPUT);
}

/** The first MAX_QUOTED_ITEMS of a client's list, each cut by quoteInput, and how many were left out. */
export function quoteList(items: readonly string[]): { shown: string[]; more: number } {
  return { shown: items.slice(0, MAX_QUOTED_ITEMS).map(quoteInput), more: Math.max(0, items.length - MAX_QUOTED_ITEMS) };
}

/** The slug used in the problem `type` URI: `{errors_url}/<slug>`. */
export function slugOf(code: ErrorCode): string {
  const entry = ERROR_CATALOGUE[code];
  return 'slug' in entry ? entry.slug : code;
}

/** One field-level problem, as in the spec's `errors` array. */
export interface FieldError {
  /**
   * Parameter path such as `query → geo`. Operations give the neutral name (`geo`); transports
   * place it (placeFields) as `query → geo`, `path → geo_key`, `arguments → geo`.
   */
  field: string;
  message: string;
  /** Validation type such as `missing`, `int_parsing`, `enum`. */
  type: string;
}

export interface AppErrorOptions {
  errors?: FieldError[];
  /** Extra members merged into the problem body (e.g. upgrade_url, limit_type). */
  extensions?: Record<string, unknown>;
  /** Response headers the transport should add (e.g. Retry-After, WWW-Authenticate). */
  headers?: Record<string, string>;
  /** Overrides `instance` (defaults to the request URL path). */
  instance?: string;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly title: string;
  readonly errors: FieldError[] | undefined;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;
  readonly instance: string | undefined;

  constructor(code: ErrorCode, detail: string, options: AppErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_CATALOGUE[code].status;
    this.title = ERROR_CATALOGUE[code].title;
    this.errors = options.errors;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
    this.instance = options.instance;
  }

  get detail(): string {
    return this.message;
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}

/** Where a parameter lives in one transport: `query`, `path`, `body`, `arguments`, `option`, … */
const PLACED = /^(query|path|body|header|arguments|argument|option) → /;

/**
 * The same error with every neutral field name placed by the transport: `place('geo')` gives
 * `query → geo` over REST, `arguments → geo` over MCP.
 * Names already placed are kept; the detail is rebuilt when it was the list of field errors.
 */
export function placeFields(err: AppError, place: (name: string) => string): AppError {
  if (!err.errors?.some((e) => !PLACED.test(e.field))) return err;
  const errors = err.errors.map((e) => {
    if (PLACED.test(e.field)) return e;
    const [head, ...rest] = e.field.split(' → ');
    return { ...e, field: [place(head!), ...rest].join(' → ') };
  });
  const listed = err.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
  const detail = err.detail === listed ? errors.map((e) => `${e.field}: ${e.message}`).join('; ') : err.detail;
  return new AppError(err.code, detail, {
    errors,
    extensions: err.extensions,
    headers: err.headers,
    instance: err.instance,
    cause: err.cause,
  });
}
