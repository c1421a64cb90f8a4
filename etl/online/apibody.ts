// Checking and assembling Census Data API bodies before they are cached. The shape itself (a
// header row of names, then rows of strings or nulls) is read by the one body reader the offline
// build uses (etl/sources/api-body.ts), so a cache file is always a body the build can read.
import { BodyError, readApiTable, type ApiTable, type Cell } from '../sources/api-body.js';

export { BodyError, type ApiTable, type Cell };

const GEO_SEP = '\u001f';
const showKey = (k: string) => k.split(GEO_SEP).join('/');

/**
 * Parse and check one body. `geoColumns` are the columns the `for=` clause must produce, last;
 * `expected`, when given, are the other columns that must be there (an explicit `get=`).
 */
export function validateApiBody(body: Buffer, geoColumns: string[], expected?: string[]): ApiTable {
  const text = body.toString('utf8');
  const head = text.trimStart().slice(0, 1);
  if (head === '<') {
    const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    throw new BodyError(`an HTML page instead of JSON${title ? ` ("${title}")` : ''}`);
  }
  const table = readApiTable(text);
  const names = table.header;
  if (new Set(names).size !== names.length) throw new BodyError('duplicate column names in the header');
  const tail = names.slice(names.length - geoColumns.length);
  if (names.length <= geoColumns.length || tail.join(GEO_SEP) !== geoColumns.join(GEO_SEP))
    throw new BodyError(`the header does not end with the geography column(s) ${geoColumns.join(', ')}`);
  if (expected) {
    const got = names.slice(0, names.length - geoColumns.length);
    const missing = expected.filter((v) => !got.includes(v));
    if (missing.length > 0 || got.length !== expected.length)
      throw new BodyError(`columns ${got.join(',')} do not match the requested ${expected.join(',')}`);
  }
  return table;
}

/** The API's own layout: one array per line, rows separated by `,\n`. */
export function serializeApiBody(table: ApiTable): string {
  return `[${[table.header, ...table.rows].map((r) => JSON.stringify(r)).join(',\n')}]`;
}

/**
 * Join chunk responses (same `for=`, disjoint variables) on their geography columns into the
 * body one request would have returned: chunk columns in request order, geography last, rows in
 * the order of the first chunk. Every chunk must cover exactly the same geographies.
 */
export function mergeByGeography(chunks: ApiTable[], geoColumns: string[]): ApiTable {
  const [first, ...rest] = chunks;
  if (!first) throw new BodyError('nothing to merge');
  const g = geoColumns.length;
  const key = (row: Cell[]) => row.slice(row.length - g).join(GEO_SEP);
  const header = chunks.flatMap((c) => c.header.slice(0, c.header.length - g));
  if (new Set(header).size !== header.length) throw new BodyError('the same column came back from two chunks');
  header.push(...geoColumns);
  const index = rest.map((chunk, i) => {
    const m = new Map<string, Cell[]>();
    for (const row of chunk.rows) {
      const k = key(row);
      if (m.has(k)) throw new BodyError(`chunk ${i + 2} repeats geography ${showKey(k)}`);
      m.set(k, row);
    }
    if (chunk.rows.length !== first.rows.length)
      throw new BodyError(`chunk ${i + 2} has ${chunk.rows.length} geographies, chunk 1 ${first.rows.length}`);
    return m;
  });
  const seen = new Set<string>();
  const rows = first.rows.map((row) => {
    const k = key(row);
    if (seen.has(k)) throw new BodyError(`chunk 1 repeats geography ${showKey(k)}`);
    seen.add(k);
    const parts = [row.slice(0, row.length - g)];
    index.forEach((m, i) => {
      const other = m.get(k);
      if (!other) throw new BodyError(`chunk ${i + 2} lacks geography ${showKey(k)}`);
      parts.push(other.slice(0, other.length - g));
    });
    return [...parts.flat(), ...row.slice(row.length - g)];
  });
  return { header, rows };
}

/** Split `get=` items into requests of at most `limit`. */
export function chunk<T>(items: T[], limit: number): T[][] {
  if (limit < 1) throw new Error('chunk limit must be positive');
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += limit) out.push(items.slice(i, i + limit));
  return out;
}
