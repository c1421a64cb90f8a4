// citysdk, the Census Bureau's own JavaScript client (npm `citysdk`), run unchanged against this
// service: its documented statistics queries answer the same numbers as /v1/data.
//
// citysdk has no base-URL option: it builds "https://api.census.gov/data/…" itself and calls the
// `fetch` that isomorphic-unfetch hands it (Node's global fetch, captured when citysdk is first
// imported). So the test points the environment at the service, as a proxy would: before citysdk
// is imported, the global fetch sends api.census.gov requests to the service's real port. citysdk
// also loads its GeoJSON configuration (index.edn, from a CDN) at start; it is used only for
// boundaries and geocoding, which these queries do not ask for, so an empty map is served for it.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../support/service.js';

type Census = (args: Record<string, unknown>, cb: (err: unknown, res: unknown) => void) => void;
type Row = Record<string, string | number | null>;

let svc: Service;
let census: Census;
const realFetch = globalThis.fetch;
const BUREAU = 'https://api.census.gov';
const requested: string[] = [];

beforeAll(async () => {
  svc = await startService();
  await svc.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(svc.app.server.address() as AddressInfo).port}`;
  globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.startsWith(`${BUREAU}/data/`)) {
      requested.push(url.slice(BUREAU.length));
      return realFetch(base + url.slice(BUREAU.length), init);
    }
    if (url.endsWith('/index.edn')) return new Response('{}');
    throw new TypeError(`fetch failed: no network here (${url})`);
  }) as typeof fetch;
  census = (await import('citysdk')).default;
});
afterAll(async () => {
  globalThis.fetch = realFetch;
  await svc?.close();
});

const viaCitysdk = (args: Record<string, unknown>) =>
  new Promise<Row[]>((resolve, reject) =>
    census({ ...args, statsKey: svc.keys.pro }, (err, res) =>
      err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(res as Row[]),
    ),
  );

interface V1Cell {
  geo_key: string;
  variable: string;
  estimate: number | null;
  moe_numeric: number | null;
}
async function viaV1(query: string): Promise<V1Cell[]> {
  const res = await svc.app.inject({ url: `/v1/data?${query}`, headers: { 'x-api-key': svc.keys.pro } });
  expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
  return (res.json() as { data: V1Cell[] }).data;
}

/** citysdk's name for the level (it writes the Bureau's spaces and slash as - and !). */
const METRO = 'metropolitan-statistical-area!micropolitan-statistical-area';
function keyOf(row: Row): string {
  if ('county' in row) return `county:${row.state}${row.county}`;
  if (METRO in row) return `metro:${row[METRO]}`;
  if ('state' in row) return `state:${row.state}`;
  return 'nation:1';
}

/** Every number citysdk gives equals /v1/data's estimate (…E) or margin of error (…M) for that geography. */
function expectSameNumbers(rows: Row[], cells: V1Cell[], codes: string[]) {
  const byKey = new Map(cells.map((c) => [`${c.geo_key} ${c.variable}`, c]));
  let compared = 0;
  for (const row of rows) {
    for (const code of codes) {
      const cell = byKey.get(`${keyOf(row)} ${code.replace(/M$/, 'E')}`);
      expect(cell, `${keyOf(row)} ${code}`).toBeDefined();
      expect(row[code], `${keyOf(row)} ${code}`).toBe(code.endsWith('M') ? cell!.moe_numeric : cell!.estimate);
      compared++;
    }
  }
  expect(compared).toBeGreaterThan(0);
  return compared;
}

describe('citysdk against this service', () => {
  it('all states, 1-year (its README example: values by ID for every state)', async () => {
    const rows = await viaCitysdk({
      vintage: 2018,
      geoHierarchy: { state: '*' },
      sourcePath: ['acs', 'acs1'],
      values: ['NAME', 'B19013_001E', 'B19013_001M'],
    });
    expect(rows).toHaveLength(52);
    expect(rows.find((r) => r.state === '06')).toEqual({ NAME: 'California', B19013_001E: 75277, B19013_001M: 317, state: '06' });
    expectSameNumbers(rows, await viaV1('variables=B19013_001E&geo=state:*&dataset=acs1&vintage=2018'), ['B19013_001E', 'B19013_001M']);
    expect(requested.at(-1)).toMatch(/^\/data\/2018\/acs\/acs1\?get=NAME,B19013_001E,B19013_001M&for=state:\*&key=/);
  });

  it('the nation, one state, several variables of a table', async () => {
    const us = await viaCitysdk({
      vintage: 2018,
      geoHierarchy: { us: '*' },
      sourcePath: ['acs', 'acs1'],
      values: ['B01001_001E', 'B01001_002E'],
    });
    expectSameNumbers(us, await viaV1('variables=B01001_001E,B01001_002E&geo=nation:1&dataset=acs1&vintage=2018'), [
      'B01001_001E',
      'B01001_002E',
    ]);
    const tx = await viaCitysdk({
      vintage: 2009,
      geoHierarchy: { state: '48' },
      sourcePath: ['acs', 'acs1'],
      values: ['B19013_001E', 'B19013_001M'],
    });
    expect(tx).toHaveLength(1);
    expectSameNumbers(tx, await viaV1('variables=B19013_001E&geo=state:48&dataset=acs1&vintage=2009'), ['B19013_001E', 'B19013_001M']);
  });

  it('every county of a state, 5-year (its README example: a state and county "*")', async () => {
    const rows = await viaCitysdk({
      vintage: 2022,
      geoHierarchy: { state: '12', county: '*' },
      sourcePath: ['acs', 'acs5'],
      values: ['NAME', 'B01003_001E', 'B25001_001E'],
    });
    expect(rows).toHaveLength(67);
    expectSameNumbers(rows, await viaV1('variables=B01003_001E,B25001_001E&geo=county:12*&dataset=acs5&vintage=2022'), [
      'B01003_001E',
      'B25001_001E',
    ]);
    expect(requested.at(-1)).toMatch(/[?&]in=state:12&for=county:\*&key=/);
  });

  it('metropolitan and micropolitan statistical areas', async () => {
    const rows = await viaCitysdk({
      vintage: 2017,
      geoHierarchy: { [METRO]: '12420' },
      sourcePath: ['acs', 'acs5'],
      values: ['NAME', 'B19013_001E', 'B19013_001M'],
    });
    expect(rows).toEqual([
      { NAME: 'Austin-Round Rock, TX Metro Area', B19013_001E: 69717, B19013_001M: expect.any(Number), [METRO]: '12420' },
    ]);
    expectSameNumbers(rows, await viaV1('variables=B19013_001E&geo=metro:12420&dataset=acs5&vintage=2017'), ['B19013_001E', 'B19013_001M']);
  });
});
