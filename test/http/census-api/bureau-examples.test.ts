// Query URLs of the Census Data API's user guide and example pages for the ACS, adapted to the
// vintages this build holds, answered as the Bureau answers them: every value of every answer is
// the value the Bureau published for that geography and column (the files under
// ../shared/census/api are its response bodies), the header is the columns asked for in the order
// asked, geography columns last, and the documented figures are the Bureau's.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_CENSUS } from '../../support/paths.js';
import { startService, type Service } from '../../support/service.js';

const METRO = 'metropolitan statistical area/micropolitan statistical area';

/** [vintage/dataset, query]: the Bureau's example queries (api.census.gov/data/{vintage}/acs/{dataset}/examples.html and the user guide). */
const EXAMPLES: Array<[string, string]> = [
  ['2018/acs1', 'get=NAME,B01001_001E&for=state:*'],
  ['2018/acs1', 'get=NAME,B19013_001E&for=state:06'],
  ['2018/acs1', 'get=NAME,B19013_001E&for=us:1'],
  ['2018/acs1', 'get=NAME,B19013_001E&for=us:*'],
  ['2018/acs1', 'get=group(B19013)&for=state:*'],
  ['2018/acs1', 'get=NAME,group(B19013)&for=us:1'],
  ['2018/acs1', 'get=B01001_001E,NAME&for=state:01,02'],
  ['2018/acs1', 'get=B01001_001E,B01001_001M,B01001_001EA,B01001_001MA&for=state:36'],
  ['2018/acs1', 'get=NAME,B17001_002E,B17001_002M&for=state:*'],
  ['2018/acs1', 'get=NAME,B02001_001E,B02001_002E,B02001_003E&for=state:12'],
  ['2018/acs1', 'get=NAME,B01002_001E&for=state:*'],
  ['2018/acs1', 'get=B01001_001E&ucgid=0400000US06'],
  ['2018/acs1', 'get=NAME,GEO_ID&ucgid=0100000US'],
  ['2017/acs1', 'get=NAME,group(B01002)&for=state:06'],
  ['2009/acs1', 'get=NAME,B19013_001E,B19013_001M&for=state:*'],
  ['2005/acs1', 'get=NAME,B25010_001E,B25010_001M&for=state:*'],
  ['2022/acs5', 'get=NAME,B01003_001E&for=county:*&in=state:06'],
  ['2022/acs5', 'get=NAME,B01003_001E&for=county:001&in=state:01'],
  ['2022/acs5', 'get=NAME,B25001_001E,B25001_001M&for=county:*&in=state:48'],
  ['2022/acs5', 'get=group(B01003)&for=county:*'],
  ['2023/acs5', 'get=NAME,B01003_001E&for=county:*'],
  ['2023/acs5', 'get=NAME,B01003_001E&for=county:037&in=state:06'],
  ['2023/acs5', 'get=NAME,B25001_001E&ucgid=0500000US06037,0500000US48453'],
  ['2017/acs5', `get=NAME,B19013_001E&for=${METRO}:*`],
  ['2017/acs5', `get=NAME,B19013_001E,B19013_001M&for=${METRO}:35620`],
  ['2017/acs5', `get=NAME,group(B19013)&for=${METRO}:12420,31080`],
];

const GEO_COLUMNS = ['us', 'state', 'county', METRO];

const files = new Map<string, (string | null)[][]>();
function publishedFile(vintage: string, dataset: string, level: string, table: string): (string | null)[][] {
  const file = path.join(SHARED_CENSUS, 'api', vintage, 'acs', dataset, level, `${table}.json.gz`);
  let rows = files.get(file);
  if (!rows) files.set(file, (rows = JSON.parse(gunzipSync(fs.readFileSync(file)).toString('utf8')) as (string | null)[][]));
  return rows;
}

/** The published value of `column` for the geography of `geo` (the answer's geography cells). */
function published(vintage: string, dataset: string, column: string, geo: Record<string, string>): string | null | undefined {
  const level = 'us' in geo ? 'nation' : 'county' in geo ? 'county' : 'state' in geo ? 'state' : 'metro';
  const table = column === 'NAME' || column === 'GEO_ID' ? undefined : column.slice(0, column.indexOf('_'));
  const candidates = table
    ? [table]
    : fs
        .readdirSync(path.join(SHARED_CENSUS, 'api', vintage, 'acs', dataset, level))
        .map((f) => f.replace(/\.json\.gz$/, ''))
        .slice(0, 1);
  const rows = publishedFile(vintage, dataset, level, candidates[0]!);
  const header = rows[0] as string[];
  const row = rows.slice(1).find((r) => Object.entries(geo).every(([k, v]) => r[header.indexOf(k)] === v));
  return row ? row[header.indexOf(column)] : undefined;
}

let svc: Service;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.close();
});

async function ask(url: string) {
  return svc.app.inject({ url, headers: { 'x-api-key': svc.keys.pro } });
}

describe('the Census Data API documented example queries', () => {
  it.each(EXAMPLES)('/data/%s?%s answers the published values', async (vd, query) => {
    const [vintage, dataset] = vd.split('/') as [string, string];
    const res = await ask(`/data/${vintage}/acs/${dataset}?${query.replace(/ /g, '%20')}`);
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const rows = JSON.parse(res.body) as (string | null)[][];
    const header = rows[0] as string[];
    // Every value a string or null; geography columns last.
    for (const r of rows) for (const v of r) expect(v === null || typeof v === 'string').toBe(true);
    const geoStart = header.findIndex((h) => GEO_COLUMNS.includes(h) || h === 'ucgid');
    expect(header.slice(geoStart).every((h) => GEO_COLUMNS.includes(h) || h === 'ucgid')).toBe(true);
    // Columns named in get= come first, in the order asked.
    const asked = new URLSearchParams(query)
      .get('get')!
      .split(',')
      .filter((g) => !g.startsWith('group('));
    if (!query.includes('group(')) expect(header.slice(0, geoStart)).toEqual(asked);
    expect(rows.length).toBeGreaterThan(1);
    for (const r of rows.slice(1)) {
      let geo: Record<string, string> = Object.fromEntries(header.slice(geoStart).map((h, i) => [h, r[geoStart + i]!]));
      if ('ucgid' in geo) {
        const id = geo.ucgid!;
        geo = id.startsWith('0100000')
          ? { us: '1' }
          : id.startsWith('0400000')
            ? { state: id.slice(-2) }
            : { state: id.slice(-5, -3), county: id.slice(-3) };
      }
      for (let i = 0; i < geoStart; i++)
        expect(r[i], `${header[i]} of ${JSON.stringify(geo)}`).toBe(published(vintage, dataset, header[i]!, geo));
    }
  });

  it("gives the Bureau's documented figures", async () => {
    const ca = JSON.parse((await ask('/data/2018/acs/acs1?get=NAME,B19013_001E,B19013_001M&for=state:06,01')).body);
    expect(ca).toEqual([
      ['NAME', 'B19013_001E', 'B19013_001M', 'state'],
      ['Alabama', '49861', '783', '01'],
      ['California', '75277', '317', '06'],
    ]);
    const us = JSON.parse((await ask('/data/2018/acs/acs1?get=group(B19013)&for=us:*')).body);
    expect(us).toEqual([
      ['GEO_ID', 'B19013_001E', 'B19013_001M', 'NAME', 'B19013_001EA', 'B19013_001MA', 'us'],
      ['0100000US', '61937', '94', 'United States', null, null, '1'],
    ]);
    const autauga = JSON.parse((await ask('/data/2023/acs/acs5?get=NAME,B01003_001E&for=county:001&in=state:01')).body);
    expect(autauga).toEqual([
      ['NAME', 'B01003_001E', 'state', 'county'],
      ['Autauga County, Alabama', '59285', '01', '001'],
    ]);
  });

  it('echoes a metro GEO_ID given as ucgid (the 2017 metro files publish none)', async () => {
    const rows = JSON.parse((await ask('/data/2017/acs/acs5?get=NAME,B19013_001E&ucgid=310M300US12420')).body);
    expect(rows).toEqual([
      ['NAME', 'B19013_001E', 'ucgid'],
      ['Austin-Round Rock, TX Metro Area', '69717', '310M300US12420'],
    ]);
  });

  it('sums the 2022 Alabama counties to the published state figure (5,028,092)', async () => {
    const rows = JSON.parse((await ask('/data/2022/acs/acs5?get=B01003_001E&for=county:*&in=state:01')).body) as string[][];
    expect(rows.slice(1).reduce((s, r) => s + Number(r[0]), 0)).toBe(5_028_092);
  });
});
