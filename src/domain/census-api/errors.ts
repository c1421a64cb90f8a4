// The Census Data API's own error answers. Its clients (censusapi, tidycensus, citysdk, census,
// cenpy) read the status and show the plain-text body, which always starts with "error: "; a query
// that matches nothing is a 204 with no body; a missing or invalid key is a 302 to an HTML page.
// Our problem+json stays on /v1 (docs/census-api.md has the mapping).

export type CensusApiErrorKind =
  | 'unknown-variable'
  | 'missing-get'
  | 'missing-for'
  | 'invalid-for'
  | 'invalid-in'
  | 'unsupported-geography'
  | 'too-many-variables'
  | 'invalid-ucgid'
  | 'unsupported-parameter'
  | 'unknown-dataset'
  | 'not-loaded';

const STATUS: Record<CensusApiErrorKind, number> = {
  'unknown-variable': 400,
  'missing-get': 400,
  'missing-for': 400,
  'invalid-for': 400,
  'invalid-in': 400,
  'unsupported-geography': 400,
  'too-many-variables': 400,
  'invalid-ucgid': 400,
  'unsupported-parameter': 400,
  'unknown-dataset': 404,
  'not-loaded': 404,
};

/** An answer in the Bureau's form: a status and a one-line text body (`error: …`). */
export class CensusApiError extends Error {
  readonly status: number;
  constructor(
    readonly kind: CensusApiErrorKind,
    message: string,
  ) {
    super(message.startsWith('error: ') ? message : `error: ${message}`);
    this.status = STATUS[kind];
  }
}

/** Quote a client's text in an error body the way the Bureau does ('X'), kept short and printable. */
export function quoted(text: string): string {
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  return `'${printable.length > 80 ? `${printable.slice(0, 77)}...` : printable}'`;
}

export const unknownVariable = (name: string) => new CensusApiError('unknown-variable', `unknown variable ${quoted(name)}`);
export const unsupportedGeography = () => new CensusApiError('unsupported-geography', 'unknown/unsupported geography hierarchy');
