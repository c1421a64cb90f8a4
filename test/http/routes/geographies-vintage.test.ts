// Geographies per vintage, from the data itself, through HTTP on the real build: the CBSAs the
// acs5 2017 files publish are the metros of 2017 (values and names as published), metros of the
// July 2023 delineation that 2017 lacks are null with geography_not_defined, and counties follow
// their changes (Shannon/Oglala Lakota, Wade Hampton/Kusilvak, Bedford city, Connecticut).
// Expected values are read from the raw files here, not from the build.
import path from 'node:path';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../support/service.js';
import { SHARED_CENSUS } from '../../support/paths.js';
import { sourceTable } from '../../domain/geo/fixture.js';

let svc: Service;
const as = (plan: keyof Service['keys']) => ({ 'x-api-key': svc.keys[plan] });
const get = async (url: string, plan: keyof Service['keys'] = 'pro') => svc.app.inject({ url, headers: as(plan) });

function raw(rel: string): string[][] {
  return JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(SHARED_CENSUS, rel))).toString('utf8')) as string[][];
}
/** The acs5 2017 metro file of B19013: CBSA → [NAME, estimate]. */
const metro2017 = new Map(
  raw('api/2017/acs/acs5/metro/B19013.json.gz')
    .slice(1)
    .map((r) => [r[3]!, [r[0]!, r[1]!] as const]),
);
const list2023 = new Set(sourceTable('geo/cbsa/list1_2023.csv.gz').map((r) => r['CBSA Code']!));
/** The ACS-style name of a 2023 CBSA: title + Metro Area / Micro Area. */
const name2023 = new Map(
  sourceTable('geo/cbsa/list1_2023.csv.gz').map((r) => [
    r['CBSA Code']!,
    `${r['CBSA Title']} ${r['Metropolitan/Micropolitan Statistical Area']!.startsWith('Metro') ? 'Metro' : 'Micro'} Area`,
  ]),
);

beforeAll(async () => {
  svc = await startService();
}, 600_000);
afterAll(() => svc?.close());

describe('metros of ACS 2017 are the CBSAs its files publish', () => {
  it.each(['32220', '35500', '19000'])(
    'metro:%s (absent from the 2023 delineation) answers its published value and name for acs5 2017',
    async (cbsa) => {
      expect(list2023.has(cbsa)).toBe(false);
      const [name, estimate] = metro2017.get(cbsa)!;
      const res = await get(`/v1/data?variables=B19013_001E&geo=metro:${cbsa}&dataset=acs5&vintage=2017`);
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toEqual([expect.objectContaining({ geo_key: `metro:${cbsa}`, geo_name: name, estimate: Number(estimate) })]);
    },
  );

  it('names every 2017 metro as published (99 differ from their 2023 titles) and lists exactly the 945', async () => {
    const names = new Map<string, string>();
    for (let offset = 0; ; offset += 1000) {
      const page = (await get(`/v1/geographies?type=metro&vintage=2017&limit=1000&offset=${offset}`, 'pioneer')).json();
      for (const g of page.data as { fips: string; name: string }[]) names.set(g.fips, g.name);
      if (offset + 1000 >= page.meta.total_count) break;
    }
    expect(names.size).toBe(945);
    expect(new Map([...metro2017].map(([c, [n]]) => [c, n]))).toEqual(names);
    const differ = [...metro2017].filter(([c, [n]]) => name2023.has(c) && n !== name2023.get(c));
    expect(differ.length).toBe(99);
    const austin = await get('/v1/geographies/metro:12420?vintage=2017');
    expect(austin.json().data).toMatchObject({
      name: 'Austin-Round Rock, TX Metro Area',
      definition: 'cbsa-as-published-2017',
      valid_from: 2017,
      valid_to: 2017,
    });
    const later = await get('/v1/geographies/metro:12420?vintage=2023');
    expect(later.json().data.name).toBe(name2023.get('12420'));
  });

  it('a metro of the 2023 delineation that ACS 2017 lacks is null with geography_not_defined, never another area', async () => {
    const only2023 = [...list2023].filter((c) => !metro2017.has(c));
    expect(only2023.length).toBe(55);
    const res = await get(`/v1/data?variables=B19013_001E&geo=metro:${only2023[0]}&dataset=acs5&vintage=2017`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.data).toEqual([
      expect.objectContaining({
        geo_key: `metro:${only2023[0]}`,
        estimate: null,
        moe_numeric: null,
        estimate_annotation: expect.objectContaining({ code: 'geography_not_defined' }),
      }),
    ]);
    expect(body.meta.notes.join(' ')).toMatch(/not in 2017.*geography_not_defined/);
    // In a series it is the 2017 point only that is not defined.
    const ts = (await get(`/v1/timeseries?variables=B19013_001E&geo=metro:${only2023[0]}&dataset=acs5&from=2016&to=2018`)).json();
    expect(ts.data.map((c: { vintage: number; estimate_annotation: { code: string } }) => [c.vintage, c.estimate_annotation.code])).toEqual(
      [
        [2016, 'no_data_loaded'],
        [2017, 'geography_not_defined'],
        [2018, 'no_data_loaded'],
      ],
    );
  });

  it("wildcards and name resolution use the vintage's own metros", async () => {
    const all = (await get('/v1/data?variables=B19013_001E&geo=metro:*&dataset=acs5&vintage=2017', 'business')).json();
    expect(all.data.length).toBe(945);
    for (const c of all.data as { geo_key: string; geo_name: string; estimate: number | null }[]) {
      const [name, estimate] = metro2017.get(c.geo_key.slice(6))!;
      expect(c.geo_name).toBe(name);
      expect(c.estimate).toBe(estimate === null ? null : Number(estimate));
    }
    // The 2017 title finds its CBSA in 2017, and in 2023 with a note naming the current title.
    const c17 = (await get('/v1/geographies/Austin-Round Rock, TX Metro Area/children?type=county&vintage=2017')).json();
    expect(c17.meta.parent.geo_key).toBe('metro:12420');
    const d23 = (
      await get(
        `/v1/data?variables=B01003_001E&geo=${encodeURIComponent('county:Austin-Round Rock, TX Metro Area')}&dataset=acs5&vintage=2023`,
      )
    ).json();
    expect(d23.meta.notes.join(' ')).toMatch(/"Austin-Round Rock, TX" is the ACS 2017 title of metro:12420/);
    // A CBSA of 2017 only has no county list in the sources: said, not guessed.
    const marshall = await get('/v1/geographies/metro:32220/children?type=county&vintage=2017');
    expect(marshall.statusCode).toBe(400);
    expect(marshall.json().detail).toMatch(/no county list/);
  });

  it('a timeseries of a 2017-only CBSA has its 2017 value and is not defined in the other vintages', async () => {
    const ts = (await get('/v1/timeseries?variables=B19013_001E&geo=metro:32220&dataset=acs5&from=2016&to=2018')).json();
    expect(
      ts.data.map((c: { vintage: number; estimate: number | null; estimate_annotation: { code: string } | null }) => [
        c.vintage,
        c.estimate,
        c.estimate_annotation?.code ?? null,
      ]),
    ).toEqual([
      [2016, null, 'geography_not_defined'],
      [2017, Number(metro2017.get('32220')![1]), null],
      [2018, null, 'geography_not_defined'],
    ]);
  });

  it('meta says which delineation a vintage is served with', async () => {
    const m17 = (await get('/v1/data?variables=B19013_001E&geo=metro:12420&dataset=acs5&vintage=2017')).json().meta;
    expect(m17.geography_definitions).toMatch(/metros as published in the ACS 2017 value files/);
    const m19 = (await get('/v1/data?variables=B19013_001E&geo=metro:12420&dataset=acs5&vintage=2019')).json().meta;
    expect(m19.geography_definitions).toMatch(/July 2023 delineation \(the sources hold no delineation for ACS 2019/);
  });
});

describe('counties follow their changes', () => {
  const county2022 = new Map(
    raw('api/2022/acs/acs5/county/B01003.json.gz')
      .slice(1)
      .map((r) => [r[3]! + r[4]!, r]),
  );

  it.each([
    ['46113', 'Shannon County, South Dakota', '46102', 'Oglala Lakota County, South Dakota', 2015],
    ['02270', 'Wade Hampton Census Area, Alaska', '02158', 'Kusilvak Census Area, Alaska', 2015],
  ])('county:%s (%s) until ACS %i-1, then county:%s (%s)', async (oldFips, oldName, newFips, newName, first) => {
    expect((await get(`/v1/geographies/county:${oldFips}?vintage=${first - 1}`)).json().data.name).toBe(oldName);
    expect((await get(`/v1/geographies/county:${oldFips}?vintage=${first}`)).statusCode).toBe(404);
    expect((await get(`/v1/geographies/county:${newFips}?vintage=${first - 1}`)).statusCode).toBe(404);
    expect((await get(`/v1/geographies/county:${newFips}?vintage=${first}`)).json().data.name).toBe(newName);
    const d = (await get(`/v1/data?variables=B01003_001E&geo=county:${oldFips};county:${newFips}&dataset=acs5&vintage=2022`)).json();
    const byKey = new Map(d.data.map((c: { geo_key: string }) => [c.geo_key, c]));
    expect(byKey.get(`county:${oldFips}`)).toMatchObject({ estimate: null, estimate_annotation: { code: 'geography_not_defined' } });
    expect(byKey.get(`county:${newFips}`)).toMatchObject({
      geo_name: county2022.get(newFips)![1],
      estimate: Number(county2022.get(newFips)![2]),
    });
  });

  it('Bedford city, VA exists through ACS 2012 only', async () => {
    expect((await get('/v1/geographies/county:51515?vintage=2012')).json().data.name).toBe('Bedford city, Virginia');
    expect((await get('/v1/geographies/county:51515?vintage=2013')).statusCode).toBe(404);
  });

  it('Connecticut: 8 legacy counties through 2021, the 9 planning regions of the 2022 files from 2022', async () => {
    const list = async (v: number) =>
      (await get(`/v1/geographies?type=county&parent=state:09&vintage=${v}`)).json().data as { fips: string; name: string }[];
    expect((await list(2021)).map((g) => g.fips)).toEqual(['09001', '09003', '09005', '09007', '09009', '09011', '09013', '09015']);
    const regions = [...county2022.keys()].filter((k) => k.startsWith('09')).sort();
    const l22 = await list(2022);
    expect(l22.map((g) => g.fips)).toEqual(regions);
    expect(l22.map((g) => g.name)).toEqual(regions.map((k) => county2022.get(k)![1]));
    const d = (await get('/v1/data?variables=B01003_001E&geo=county:09001;county:09110&dataset=acs5&vintage=2022')).json();
    expect(d.data[0]).toMatchObject({ geo_key: 'county:09001', estimate: null, estimate_annotation: { code: 'geography_not_defined' } });
    expect(d.data[1]).toMatchObject({ geo_key: 'county:09110', estimate: Number(county2022.get('09110')![2]) });
    expect(d.meta.notes.join(' ')).toMatch(/planning regions/);
  });

  it("include_geometry draws the vintage's definitions: legacy CT counties through 2021, planning regions after, nothing for an undefined area", async () => {
    const shape = async (geo: string, vintage: number) => {
      const res = await get(`/v1/data?variables=B01003_001E&geo=${geo}&dataset=acs5&vintage=${vintage}&include_geometry=true`, 'business');
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data[0].geometry as { type: string } | null;
    };
    expect((await shape('county:09001', 2021))?.type).toMatch(/Polygon/);
    expect(await shape('county:09001', 2022)).toBeNull();
    expect((await shape('county:09110', 2022))?.type).toMatch(/Polygon/);
    expect(await shape('county:09110', 2021)).toBeNull();
    // 2010-definition tract shapes are not 2020 tracts.
    expect((await shape('tract:01001020100', 2019))?.type).toMatch(/Polygon/);
    expect(await shape('tract:01001020100', 2022)).toBeNull();
  });

  it('/v1/boundaries takes a vintage: the file of its definitions, never a shape of another vintage', async () => {
    const b = async (url: string) => svc.app.inject({ url, headers: as('business') });
    expect((await b('/v1/boundaries/county:09001?vintage=2021')).statusCode).toBe(200);
    const gone = await b('/v1/boundaries/county:09001?vintage=2023');
    expect(gone.statusCode).toBe(404);
    expect(gone.json().detail).toMatch(/does not exist in ACS 2023/);
    const only2023 = [...list2023].find((c) => !metro2017.has(c))!;
    expect((await b(`/v1/boundaries/metro:${only2023}?vintage=2017`)).statusCode).toBe(404);
    expect((await b(`/v1/boundaries/metro:${only2023}?vintage=2023`)).statusCode).toBe(200);
    const tracts = await b('/v1/boundaries/tract?vintage=2022');
    expect(tracts.statusCode).toBe(404);
    expect(tracts.json().detail).toMatch(/definitions of ACS 2022/);
    const legacy = await b('/v1/boundaries/county?vintage=2019&bbox=-73.8,41.0,-71.8,42.1');
    expect(legacy.statusCode).toBe(200);
    const ct = (legacy.json().features as { properties: { geo_key: string } }[])
      .map((f) => f.properties.geo_key)
      .filter((k) => k.startsWith('county:09'));
    expect(ct.sort()).toEqual([
      'county:09001',
      'county:09003',
      'county:09005',
      'county:09007',
      'county:09009',
      'county:09011',
      'county:09013',
      'county:09015',
    ]);
  });
});
