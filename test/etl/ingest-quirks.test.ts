// Ingest that generalises: a small source tree of our own, in the layout of ../shared/census,
// holding vintages and levels the shared tree does not have and the quirks real Census files have
// (no GEO_ID, no NAME, repeated columns, nulls where a redistributor dropped jam values, codes of
// older delineations, aggregates beyond 2^31 and 2^53). It is built by the real ETL and every
// value is asked back through the HTTP API, which must serve exactly what the files say.
//
// The value files are generated here (FIXTURE values, not Census figures: they test the pipeline);
// the reference files the geography step needs (geo/, metadata/) are the shared ones, linked, not
// copied. Malformed files stop the build naming file and row.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build } from '../../etl/build.js';
import { InputError } from '../../etl/step.js';
import { catalogStep } from '../../etl/steps/catalog.js';
import { geographiesStep } from '../../etl/steps/geographies.js';
import { observationsStep } from '../../etl/steps/observations.js';
import { resolveCurrentBuild } from '../../src/store/data-dir.js';
import { startService, type Service } from '../support/service.js';
import { SHARED_CENSUS } from '../support/paths.js';
import { sourceTable } from '../domain/geo/fixture.js';

type Cell = string | null;
const STEPS = [catalogStep, observationsStep, geographiesStep];

/** A Census Data API body: one array per line, rows separated by `,\n` (the API's layout). */
const body = (rows: Cell[][]) => `[${rows.map((r) => JSON.stringify(r)).join(',\n')}]`;

async function writeApi(root: string, rel: string, rows: Cell[][]): Promise<void> {
  const file = path.join(root, 'api', rel);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, gzipSync(body(rows)));
}

/** A fresh source tree: the shared reference files linked in, no value files yet. */
async function sourceTree(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'ingest-quirks-'));
  const src = path.join(root, 'census');
  await fs.mkdir(src);
  for (const dir of ['geo', 'metadata']) await fs.symlink(path.join(SHARED_CENSUS, dir), path.join(src, dir));
  return src;
}

const STATES = sourceTable('geo/cenpop/2020/state.csv')
  .map((r) => r.STATEFP!)
  .sort();
const CT_LEGACY = ['001', '003', '005', '007', '009', '011', '013', '015'];
const CT_NAMES = [
  'Fairfield County',
  'Hartford County',
  'Litchfield County',
  'Middlesex County',
  'New Haven County',
  'New London County',
  'Tolland County',
  'Windham County',
];

// FIXTURE values, chosen to exercise the pipeline.
const acs1State2016 = STATES.map((s, i): Cell[] => [String(40_000 + 137 * i), String(200 + i), null, null, s]);
const ctPop2019 = CT_LEGACY.map((c, i): Cell[] => [
  `${CT_NAMES[i]}, Connecticut`,
  String(100_000 + 1_111 * i),
  null,
  '-555555555',
  '*****',
  `0500000US09${c}`,
  `${CT_NAMES[i]}, Connecticut`,
  '09',
  c,
]);
// Row 2: nulls where a redistributor dropped the jam values; row 5: the symbols a data.census.gov
// export writes instead of them.
const ctIncome2019 = CT_LEGACY.map((c, i): Cell[] => [
  `${CT_NAMES[i]}, Connecticut`,
  i === 2 ? null : i === 5 ? '-' : String(70_000 + 10 * i),
  i === 2 ? null : i === 5 ? '**' : String(900 + i),
  '09',
  c,
]);
const metro2019: Cell[][] = [
  ['Austin-Round Rock-Georgetown, TX Metro Area', '71576', '660', '12420'],
  ['Marshall, TX Micro Area', '50123', '2811', '32220'],
  ['Newton, IA Micro Area', null, null, '35500'],
];
const cd2019: Cell[][] = ['01', '02', '03', '04', '05', '06', '07'].map((d, i) => [
  `Congressional District ${Number(d)} (116th Congress), Alabama`,
  String(45_000 + i),
  String(1_000 + i),
  '01',
  d,
]);
const BIG_NATION = '12123456789012'; // > 2^31
const BIG_STATE = '9007199254740994'; // > 2^53, and a double holds it exactly

let src: string;
let dataDir: string;
let svc: Service;
const get = async (url: string) => {
  const res = await svc.app.inject({ url, headers: { 'x-api-key': svc.keys.business } });
  expect(res.statusCode, res.body).toBe(200);
  return res;
};
const cells = async (url: string) =>
  (await get(url)).json().data as Array<
    Record<string, unknown> & { geo_key: string; estimate: number | null; estimate_annotation: { code: string } | null }
  >;

beforeAll(async () => {
  src = await sourceTree();
  dataDir = path.join(path.dirname(src), 'data');
  // acs1 2016 (absent from the shared tree), state level: no GEO_ID and no NAME.
  await writeApi(src, '2016/acs/acs1/state/B19013.json.gz', [
    ['B19013_001E', 'B19013_001M', 'B19013_001EA', 'B19013_001MA', 'state'],
    ...acs1State2016,
  ]);
  // acs5 2019 counties: `get=NAME,group(B01003)` repeats NAME; a controlled MOE as the API gives it.
  await writeApi(src, '2019/acs/acs5/county/B01003.json.gz', [
    ['NAME', 'B01003_001E', 'B01003_001EA', 'B01003_001M', 'B01003_001MA', 'GEO_ID', 'NAME', 'state', 'county'],
    ...ctPop2019,
  ]);
  // No GEO_ID, no annotation columns, a null where a redistributor dropped a jam value.
  await writeApi(src, '2019/acs/acs5/county/B19013.json.gz', [['NAME', 'B19013_001E', 'B19013_001M', 'state', 'county'], ...ctIncome2019]);
  // Metros of an older delineation's codes and titles.
  await writeApi(src, '2019/acs/acs5/metro/B19013.json.gz', [
    ['NAME', 'B19013_001E', 'B19013_001M', 'metropolitan statistical area/micropolitan statistical area'],
    ...metro2019,
  ]);
  // A level the shared tree has no values for: districts of the 116th Congress.
  await writeApi(src, '2019/acs/acs5/cd/B19013.json.gz', [
    ['NAME', 'B19013_001E', 'B19013_001M', 'state', 'congressional district'],
    ...cd2019,
  ]);
  // Tracts without NAME (2010 tract definitions in 2019).
  await writeApi(src, '2019/acs/acs5/tract/B19013.json.gz', [
    ['B19013_001E', 'B19013_001M', 'state', 'county', 'tract'],
    ['58541', '6511', '01', '001', '020100'],
    ['47279', '7808', '01', '001', '020200'],
  ]);
  // Very large aggregates.
  await writeApi(src, '2019/acs/acs1/nation/B19025.json.gz', [
    ['GEO_ID', 'NAME', 'B19025_001E', 'B19025_001M', 'us'],
    ['0100000US', 'United States', BIG_NATION, '19876543210', '1'],
  ]);
  await writeApi(src, '2019/acs/acs1/state/B25082.json.gz', [
    ['GEO_ID', 'NAME', 'B25082_001E', 'B25082_001M', 'state'],
    ['0400000US06', 'California', BIG_STATE, '2147483649', '06'],
  ]);
  const summary = await build({ sourceDir: src, dataDir, steps: STEPS, quiet: true });
  svc = await startService({ buildDir: summary.buildDir });
}, 600_000);
afterAll(async () => {
  await svc?.close();
  if (src) await fs.rm(path.dirname(src), { recursive: true, force: true });
});

describe('a source tree with new vintages, levels and real-world quirks', () => {
  it('serves a new acs1 vintage from files without GEO_ID or NAME, named from the reference', async () => {
    const got = await cells('/v1/data?variables=B19013_001E&geo=state:*&dataset=acs1&vintage=2016');
    expect(got.map((c) => [c.geo_key, c.estimate, c.moe_numeric])).toEqual(
      acs1State2016.map((r) => [`state:${r[4]}`, Number(r[0]), Number(r[1])]),
    );
    expect(got.find((c) => c.geo_key === 'state:06')!.geo_name).toBe('California');
  });

  it('a vintage and level held only in files without NAME answers on /data/… with the cells /v1/data serves', async () => {
    // Issue 34 §6: such a partition used to answer 204 on the Census-API route, which kept only
    // the geographies whose NAME the files published.
    const pairs = async (v1: string, bureau: string, geo: (row: string[]) => string) => {
      const served = (await cells(v1)).map((c) => [c.geo_key, c.estimate === null ? null : String(c.estimate)]);
      const res = await get(bureau);
      const [header, ...rows] = res.json() as string[][];
      expect(header![0]).toBe(bureau.includes('get=NAME') ? 'NAME' : /get=(\w+)/.exec(bureau)![1]);
      const e = header!.indexOf(/get=(?:NAME,)?(\w+)/.exec(bureau)![1]!);
      expect(rows.map((r) => [geo(r), r[e]])).toEqual(served);
      return rows;
    };
    const states = await pairs(
      '/v1/data?variables=B19013_001E&geo=state:*&dataset=acs1&vintage=2016',
      '/data/2016/acs/acs1?get=B19013_001E&for=state:*',
      (r) => `state:${r[1]}`,
    );
    expect(states).toHaveLength(acs1State2016.length);
    const named = await pairs(
      '/v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2016',
      '/data/2016/acs/acs1?get=NAME,B19013_001E&for=state:06',
      (r) => `state:${r[2]}`,
    );
    expect(named[0]![0]).toBe('California');
    const tracts = await pairs(
      '/v1/data?variables=B19013_001E&geo=tract:01001020100;tract:01001020200&dataset=acs5&vintage=2019',
      '/data/2019/acs/acs5?get=B19013_001E&for=tract:020100,020200&in=state:01%20county:001',
      (r) => `tract:${r[1]}${r[2]}${r[3]}`,
    );
    expect(tracts).toHaveLength(2);
  });

  it('reads a repeated column once (its copies agree) and serves the published values and names', async () => {
    const got = await cells('/v1/data?variables=B01003_001E&geo=county:09*&dataset=acs5&vintage=2019');
    expect(got.map((c) => [c.geo_key, c.geo_name, c.estimate, c.moe_numeric, c.moe_annotation])).toEqual(
      ctPop2019.map((r) => [`county:09${r[8]}`, r[0], Number(r[1]), null, expect.objectContaining({ code: 'controlled' })]),
    );
  });

  it("a null where the source dropped a jam value is missing_in_source; an export's symbol is its jam value", async () => {
    const got = await cells('/v1/data?variables=B19013_001E&geo=county:09*&dataset=acs5&vintage=2019');
    expect(got.map((c) => c.estimate)).toEqual(ctIncome2019.map((r) => (r[1] === null || r[1] === '-' ? null : Number(r[1]))));
    expect(got[2]).toMatchObject({
      geo_key: 'county:09005',
      estimate: null,
      moe_numeric: null,
      estimate_annotation: { code: 'missing_in_source' },
    });
    expect(got[5]).toMatchObject({
      geo_key: 'county:09011',
      estimate: null,
      moe_numeric: null,
      estimate_annotation: { code: 'not_computable' },
      moe_annotation: { code: 'moe_not_computable' },
    });
  });

  it('metros of an older delineation: codes and titles as published, 2023-only metros not defined', async () => {
    const got = await cells('/v1/data?variables=B19013_001E&geo=metro:12420;metro:32220;metro:35500;metro:10480&dataset=acs5&vintage=2019');
    expect(got.map((c) => [c.geo_key, c.geo_name, c.estimate, c.estimate_annotation?.code ?? null])).toEqual([
      ['metro:12420', 'Austin-Round Rock-Georgetown, TX Metro Area', 71576, null],
      ['metro:32220', 'Marshall, TX Micro Area', 50123, null],
      ['metro:35500', 'Newton, IA Micro Area', null, 'missing_in_source'],
      ['metro:10480', 'Alamosa, CO Micro Area', null, 'geography_not_defined'],
    ]);
    const list = (await get('/v1/geographies?type=metro&vintage=2019')).json();
    expect(list.meta.total_count).toBe(3);
    const meta = (await get('/v1/data?variables=B19013_001E&geo=metro:12420&dataset=acs5&vintage=2019')).json().meta;
    expect(meta.geography_definitions).toMatch(/metros as published in the ACS 2019 value files/);
  });

  it('a new level (districts of the 116th Congress) is served with the names it was published under', async () => {
    const got = await cells('/v1/data?variables=B19013_001E&geo=cd:01*&dataset=acs5&vintage=2019');
    expect(got.map((c) => [c.geo_key, c.geo_name, c.estimate, c.moe_numeric])).toEqual(
      cd2019.map((r) => [`cd:01${r[4]}`, r[0], Number(r[1]), Number(r[2])]),
    );
    const meta = (await get('/v1/data?variables=B19013_001E&geo=cd:0101&dataset=acs5&vintage=2019')).json().meta;
    expect(meta.geography_definitions).toMatch(/congressional districts as published in the ACS 2019 value files/);
  });

  it('tracts from a file without NAME carry their generated Census names', async () => {
    const got = await cells('/v1/data?variables=B19013_001E&geo=tract:01001020100;tract:01001020200&dataset=acs5&vintage=2019');
    expect(got.map((c) => [c.geo_name, c.estimate, c.moe_numeric])).toEqual([
      ['Census Tract 201, Autauga County, Alabama', 58541, 6511],
      ['Census Tract 202, Autauga County, Alabama', 47279, 7808],
    ]);
  });

  it('serves aggregates beyond 2^31 and 2^53 exactly (JSON text and CSV)', async () => {
    const nation = await get('/v1/data?variables=B19025_001E&geo=nation:1&dataset=acs1&vintage=2019');
    expect(nation.body).toContain(`"estimate":${BIG_NATION},"moe_numeric":19876543210`);
    const state = await get('/v1/data?variables=B25082_001E&geo=state:06&dataset=acs1&vintage=2019');
    expect(state.body).toContain(`"estimate":${BIG_STATE},"moe_numeric":2147483649`);
    const csv = await get('/v1/data?variables=B25082_001E&geo=state:06&dataset=acs1&vintage=2019&format=csv');
    expect(csv.body).toContain(`,${BIG_STATE},2147483649,`);
  });
});

describe('incremental builds', () => {
  it('a new group file that publishes no new geography reuses the geographies; a new geography rebuilds them', async () => {
    await writeApi(src, '2019/acs/acs1/state/B19013.json.gz', [
      ['GEO_ID', 'NAME', 'B19013_001E', 'B19013_001M', 'state'],
      ['0400000US06', 'California', '80440', '262', '06'],
    ]);
    const same = await build({ sourceDir: src, dataDir, steps: STEPS, quiet: true });
    const notes = (await import('../../src/store/data-dir.js')).readManifest(same.buildDir).steps.geographies!.notes;
    expect(notes).toContain('reused: reference files and published geographies unchanged');
    await writeApi(src, '2019/acs/acs5/metro/B19013A.json.gz', [
      ['NAME', 'B19013A_001E', 'B19013A_001M', 'metropolitan statistical area/micropolitan statistical area'],
      ['Newton, IA Micro Area', '1', '2', '35500'],
      ['Alamosa, CO Micro Area', '3', '4', '10480'],
    ]);
    const more = await build({ sourceDir: src, dataDir, steps: STEPS, quiet: true });
    const m = (await import('../../src/store/data-dir.js')).readManifest(more.buildDir).steps.geographies!;
    expect(m.notes.join(' ')).not.toMatch(/reused/);
    expect(m.rows['geo/metro']).toBeGreaterThan(0);
  }, 300_000);
});

describe('malformed beyond recovery: the build stops naming file and row, the live build stays', () => {
  it.each([
    [
      'a repeated column whose copies disagree',
      [
        ['NAME', 'B01003_001E', 'NAME', 'state'],
        ['Alabama', '5', 'Alabama', '01'],
        ['Alaska', '7', 'Alaska!', '02'],
      ],
      'row 2: column "NAME" is repeated with different values ("Alaska" and "Alaska!")',
    ],
    [
      'an integer a double cannot hold',
      [
        ['B01003_001E', 'state'],
        ['5', '01'],
        ['9007199254740993', '02'],
      ],
      'row 2: B01003_001E value 9007199254740993 cannot be stored exactly',
    ],
    [
      'a number that is not decimal',
      [
        ['B01003_001E', 'state'],
        ['0x1A', '01'],
      ],
      'row 1: B01003_001E is not a decimal number: "0x1A"',
    ],
    [
      'two different rows for one geography',
      [
        ['B01003_001E', 'state'],
        ['5', '01'],
        ['6', '01'],
      ],
      'row 2: geography state:01 appears in more than one row with different values',
    ],
  ])('%s', async (_what, rows, message) => {
    const tree = await sourceTree();
    const data = path.join(path.dirname(tree), 'data');
    await writeApi(tree, '2018/acs/acs1/state/B19013.json.gz', [
      ['B19013_001E', 'state'],
      ['1', '01'],
    ]);
    const first = await build({ sourceDir: tree, dataDir: data, steps: [observationsStep], quiet: true });
    await writeApi(tree, '2018/acs/acs1/state/B01003.json.gz', rows as Cell[][]);
    const err = await build({ sourceDir: tree, dataDir: data, steps: [observationsStep], quiet: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as InputError).message).toContain(`api/2018/acs/acs1/state/B01003.json.gz, ${message}`);
    expect(resolveCurrentBuild(data)).toBe(first.buildDir);
    await fs.rm(path.dirname(tree), { recursive: true, force: true });
  });

  it('an exact repeat of a row is read once', async () => {
    const tree = await sourceTree();
    const data = path.join(path.dirname(tree), 'data');
    await writeApi(tree, '2018/acs/acs1/state/B01003.json.gz', [
      ['B01003_001E', 'state'],
      ['5', '01'],
      ['5', '01'],
    ]);
    const s = await build({ sourceDir: tree, dataDir: data, steps: [observationsStep], quiet: true });
    expect((await import('../../src/store/data-dir.js')).readManifest(s.buildDir).steps.observations!.rows['acs1/2018/state']).toBe(1);
    await fs.rm(path.dirname(tree), { recursive: true, force: true });
  });
});
