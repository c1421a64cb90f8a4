// Discovery documents against the query: every code a discovery document lists for a dataset and
// vintage (variables.json, groups/{X}.json, variables/{code}.json) answers on that dataset's query
// endpoint at every level its geography.json lists — with the value the Bureau published where
// the source file has the column (../shared/census/api, byte for byte the Bureau's answers), and
// null where it does not (acs5 2022 counties' B01003_001M, the 2017 metro files' partial groups),
// as the Bureau answers a value it lacks; never 400 "unknown variable". tidycensus asks for every
// estimate with its margin, so one refused listed code fails every one of its queries.
//
// Every vintage the test build holds is walked. variables.json lists every estimate and each
// group document its E, EA, M and MA; asking all of them (about 1.5 million codes) would take an
// hour, so a seeded sample of each vintage's codes is asked, in 40-code queries.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_CENSUS } from '../../support/paths.js';
import { startService, type Service } from '../../support/service.js';

const SEED = 36;
/** Codes asked per dataset and vintage, and groups whose documents are read whole. */
const CODES_PER_VINTAGE = 240;
const GROUPS_PER_VINTAGE = 12;
const PER_QUERY = 40;

/** mulberry32: a small seeded generator, so a failure names codes that can be asked again. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function sample<T>(items: T[], n: number, next: () => number): T[] {
  const a = [...items];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a.slice(0, n);
}

/** One geography of each level: its `for=`/`in=` clause, our level folder and the file's geography columns. */
const ONE_OF: Record<string, { clause: string; folder: string; geo: Record<string, string> }> = {
  us: { clause: 'for=us:1', folder: 'nation', geo: { us: '1' } },
  state: { clause: 'for=state:48', folder: 'state', geo: { state: '48' } },
  county: { clause: 'for=county:453&in=state:48', folder: 'county', geo: { state: '48', county: '453' } },
  'metropolitan statistical area/micropolitan statistical area': {
    clause: 'for=metropolitan%20statistical%20area/micropolitan%20statistical%20area:12420',
    folder: 'metro',
    geo: { 'metropolitan statistical area/micropolitan statistical area': '12420' },
  },
};

/** The Bureau's published row of a table file for one geography: column → text (undefined: no such file). */
function publishedRow(root: string, folder: string, table: string, geo: Record<string, string>): Map<string, string | null> | undefined {
  const file = path.join(SHARED_CENSUS, 'api', root, folder, `${table}.json.gz`);
  if (!fs.existsSync(file)) return undefined;
  const rows = JSON.parse(gunzipSync(fs.readFileSync(file)).toString('utf8')) as Array<Array<string | null>>;
  const header = rows[0] as string[];
  const row = rows.slice(1).find((r) => Object.entries(geo).every(([k, v]) => r[header.indexOf(k)] === v));
  return row ? new Map(header.map((h, i) => [h, row[i]!])) : new Map();
}

let svc: Service;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.close();
});

async function json<T>(url: string): Promise<T> {
  const res = await svc.app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  return res.json() as T;
}

describe('every code a discovery document lists answers on the query endpoint', () => {
  it("answers the issue's tidycensus query: B01003_001M, listed for acs5 2022/2023 counties, is a null cell", async () => {
    for (const vintage of [2022, 2023]) {
      const doc = await json<{ name: string }>(`/data/${vintage}/acs/acs5/variables/B01003_001M.json`);
      expect(doc.name).toBe('B01003_001M');
      const res = await svc.app.inject({
        url: `/data/${vintage}/acs/acs5?get=NAME,B01003_001E,B01003_001M&for=county:453&in=state:48`,
        headers: { 'x-api-key': svc.keys.pro },
      });
      expect(res.statusCode, res.body).toBe(200);
      const row = publishedRow(`${vintage}/acs/acs5`, 'county', 'B01003', { state: '48', county: '453' })!;
      expect(res.json()).toEqual([
        ['NAME', 'B01003_001E', 'B01003_001M', 'state', 'county'],
        ['Travis County, Texas', row.get('B01003_001E'), null, '48', '453'],
      ]);
    }
  });

  it('walks a seeded sample of every vintage’s listed codes', async () => {
    const catalog = await json<{ dataset: Array<{ c_vintage: number; c_dataset: string[]; distribution: Array<{ accessURL: string }> }> }>(
      '/data.json',
    );
    expect(catalog.dataset.length).toBeGreaterThanOrEqual(16);
    const next = random(SEED);
    let asked = 0;
    let nulls = 0;
    for (const d of catalog.dataset) {
      const root = `${d.c_vintage}/${d.c_dataset.join('/')}`;
      const listed = new Set<string>();
      const vars = await json<{ variables: Record<string, { predicateOnly?: boolean; group: string }> }>(`/data/${root}/variables.json`);
      for (const [code, v] of Object.entries(vars.variables)) if (v.group !== 'N/A') listed.add(code);
      const groups = await json<{ groups: Array<{ name: string }> }>(`/data/${root}/groups.json`);
      for (const g of sample(groups.groups, GROUPS_PER_VINTAGE, next)) {
        const doc = await json<{ variables: Record<string, unknown> }>(`/data/${root}/groups/${g.name}.json`);
        for (const code of Object.keys(doc.variables)) listed.add(code);
      }
      const codes = sample([...listed].sort(), CODES_PER_VINTAGE, next);
      // Each listed code has its own document.
      for (const code of codes.slice(0, 20)) expect((await json<{ name: string }>(`/data/${root}/variables/${code}.json`)).name).toBe(code);
      const levels = (await json<{ fips: Array<{ name: string }> }>(`/data/${root}/geography.json`)).fips.map((f) => f.name);
      for (const level of levels) {
        const one = ONE_OF[level];
        expect(one, `a geography of ${level}`).toBeDefined();
        for (let i = 0; i < codes.length; i += PER_QUERY) {
          const batch = codes.slice(i, i + PER_QUERY);
          const url = `/data/${root}?get=${batch.join(',')}&${one!.clause}`;
          const res = await svc.app.inject({ url, headers: { 'x-api-key': svc.keys.pro } });
          expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
          const [header, row, ...more] = res.json() as Array<Array<string | null>>;
          expect(more).toEqual([]);
          expect(header!.slice(0, batch.length)).toEqual(batch);
          batch.forEach((code, k) => {
            const file = publishedRow(root, one!.folder, code.slice(0, code.indexOf('_')), one!.geo);
            const cell = row![k];
            asked++;
            if (cell === null) nulls++;
            // Where the Bureau's answer is here, the cell is its text; a column it did not publish is null.
            if (file !== undefined) expect(cell, `${root} ${code} at ${level}`).toBe(file.has(code) ? file.get(code) : null);
          });
        }
      }
    }
    expect(asked).toBeGreaterThan(16 * CODES_PER_VINTAGE);
    expect(nulls).toBeLessThan(asked);
  }, 600_000);
});
