// The Census-API route's answer cache is keyed by the parsed query (src/verbs/census-api-query.ts,
// gridKeyOf), not by its text: spellings of one request — the codes of `for=` in another order,
// `in=` before or after `for=`, `ucgid=` instead of `for`/`in`, other columns of the same
// variables — share one entry, and each still gets the bytes the Bureau answers for its own
// spelling (its header, its geography columns, its `ucgid` as written). The expected bodies are
// built from the Bureau's own response files (../shared/census/api), rows in geography order as
// this service answers them (docs/census-api.md), in the Bureau's layout (one row a line).
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLookups } from '../../../src/store/metrics.js';
import { SHARED_CENSUS } from '../../support/paths.js';
import { startService, type Service } from '../../support/service.js';

const METRO = 'metropolitan statistical area/micropolitan statistical area';

type Rows = (string | null)[][];

function bureauFile(file: string): Rows {
  return JSON.parse(gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, 'api', file))).toString('utf8')) as Rows;
}

/**
 * The Bureau's body for `columns` of the rows `keep` selects from one of its response files, in
 * geography order (by the geography columns), ending with the level's geography columns, or with
 * `ucgid` holding what `ucgid` gives for the row.
 */
function expectedBody(
  file: string,
  columns: string[],
  keep: (cell: (name: string) => string | null) => boolean,
  ucgid?: (cell: (name: string) => string | null) => string,
): string {
  const [header, ...rows] = bureauFile(file) as [string[], ...Rows];
  const at = (row: (string | null)[]) => (name: string) => row[header.indexOf(name)]!;
  const geoColumns = header.filter((h) => ['state', 'county', METRO].includes(h));
  const selected = rows
    .filter((r) => keep(at(r)))
    .sort((a, b) => {
      const ka = geoColumns.map((g) => at(a)(g)).join('');
      const kb = geoColumns.map((g) => at(b)(g)).join('');
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
  const out: Rows = [
    ucgid ? [...columns, 'ucgid'] : [...columns, ...geoColumns],
    ...selected.map((r) => [...columns.map((c) => at(r)(c)), ...(ucgid ? [ucgid(at(r))] : geoColumns.map((g) => at(r)(g)))]),
  ];
  return `[${out.map((r) => JSON.stringify(r)).join(',\n')}]`;
}

let svc: Service;
beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(async () => {
  await svc?.close();
});

/** The answer cache's lookups so far (hits and misses of the engine's grids). */
async function lookups(): Promise<{ hit: number; miss: number }> {
  const { values } = await cacheLookups.get();
  const count = (result: string) => values.find((v) => v.labels.cache === 'data_answers' && v.labels.result === result)?.value ?? 0;
  return { hit: count('hit'), miss: count('miss') };
}

/** A query's status, body and whether its grid came from the answer cache. */
async function ask(url: string): Promise<{ status: number; body: string; cache: 'hit' | 'miss' | 'none' }> {
  const before = await lookups();
  const res = await svc.app.inject({ url, headers: { 'x-api-key': svc.keys.pro } });
  const after = await lookups();
  const cache = after.hit > before.hit ? 'hit' : after.miss > before.miss ? 'miss' : 'none';
  return { status: res.statusCode, body: res.body, cache };
}

describe('the Census-API answer cache reads the parsed query', () => {
  it('for=state:06,48, for=state:48,06, other columns of the same variable and ucgid= share one entry, each with its own bytes', async () => {
    const file = '2018/acs/acs1/state/B19013.json.gz';
    const two = (cell: (n: string) => string | null) => ['06', '48'].includes(cell('state')!);
    const first = await ask('/data/2018/acs/acs1?get=NAME,B19013_001E&for=state:06,48');
    expect(first).toEqual({ status: 200, cache: 'miss', body: expectedBody(file, ['NAME', 'B19013_001E'], two) });

    expect(await ask('/data/2018/acs/acs1?get=NAME,B19013_001E&for=state:48,06')).toEqual({ ...first, cache: 'hit' });
    expect(await ask('/data/2018/acs/acs1?get=B19013_001M,NAME,B19013_001E,B19013_001EA&for=state:48,06')).toEqual({
      status: 200,
      cache: 'hit',
      body: expectedBody(file, ['B19013_001M', 'NAME', 'B19013_001E', 'B19013_001EA'], two),
    });
    expect(await ask('/data/2018/acs/acs1?get=NAME,B19013_001E&ucgid=0400000US48,0400000US06')).toEqual({
      status: 200,
      cache: 'hit',
      body: expectedBody(file, ['NAME', 'B19013_001E'], two, (cell) => cell('GEO_ID')!),
    });
    // Another question is another entry.
    expect((await ask('/data/2018/acs/acs1?get=NAME,B19013_001E&for=state:06')).cache).toBe('miss');
  });

  it('in=state:48&for=county:* and for=county:*&in=state:48 share one entry and the same bytes', async () => {
    const file = '2022/acs/acs5/county/B01003.json.gz';
    const first = await ask('/data/2022/acs/acs5?get=NAME,B01003_001E&in=state:48&for=county:*');
    const texas = expectedBody(file, ['NAME', 'B01003_001E'], (cell) => cell('state') === '48');
    expect(first).toEqual({ status: 200, cache: 'miss', body: texas });
    expect(texas.split('\n')).toHaveLength(255);
    expect(await ask('/data/2022/acs/acs5?get=NAME,B01003_001E&for=county:*&in=state:48')).toEqual({ ...first, cache: 'hit' });
  });

  it('ucgid= echoes the GEO_IDs as the client wrote them from an entry made by for= (metros have no published GEO_ID)', async () => {
    const file = '2017/acs/acs5/metro/B19013.json.gz';
    const two = (cell: (n: string) => string | null) => ['12420', '31080'].includes(cell(METRO)!);
    const byFor = await ask(`/data/2017/acs/acs5?get=NAME,B19013_001E&for=${encodeURIComponent(METRO)}:31080,12420`);
    expect(byFor).toEqual({ status: 200, cache: 'miss', body: expectedBody(file, ['NAME', 'B19013_001E'], two) });
    const ucgid = await ask('/data/2017/acs/acs5?get=NAME,B19013_001E&ucgid=310M300US12420,310M300US31080');
    expect(ucgid).toEqual({
      status: 200,
      cache: 'hit',
      body: expectedBody(file, ['NAME', 'B19013_001E'], two, (cell) => `310M300US${cell(METRO)}`),
    });
    // The route reads any GEO_ID component code (src/domain/census-api/levels.ts, parseGeoId); whether
    // the Bureau answers this one is not known here, but the rule of this service is to echo the
    // GEO_ID as asked: a second spelling shares the entry and gets its own text, not the first one's.
    const other = await ask('/data/2017/acs/acs5?get=NAME,B19013_001E&ucgid=310M200US31080,310M200US12420');
    expect(other).toEqual({
      status: 200,
      cache: 'hit',
      body: expectedBody(file, ['NAME', 'B19013_001E'], two, (cell) => `310M200US${cell(METRO)}`),
    });
  });
});
