// predicateType: every estimate and margin of every served dataset and vintage, acs5 included,
// carries the Bureau's type, and the Python `census` client (datamade/census) decodes acs5 values
// as numbers. That client is not installable here (PyPI is unreachable; Debian has no
// python3-census), so its decoding runs as its own source has it: `Client.query` and
// `Client._field_type` of census/core.py (lines 169–237 at datamade/census@3da5a1068164c27f6e83815f5d28ec300e184fdf),
// with `requests`, against this service on a real port. Its rule: each header's
// variables/{name}.json `predicateType` picks the cast — `int`/`long` → float_or_str, `float` →
// float, anything else or a missing type → str.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARED_CENSUS } from '../../support/paths.js';
import { startService, type Service } from '../../support/service.js';

// census/core.py at 3da5a10, lines 34–38 and 169–237, with the endpoint pointed at this service
// (what the client's endpoint_url/definition_url are for) and the retry decorator left out.
const CENSUS_CLIENT = `
import json, sys
import requests

def float_or_str(v):
    try:
        return float(v)
    except ValueError:
        return str(v)

class ACSClient(object):
    def __init__(self, base, key, dataset):
        self._key = key
        self.session = requests.Session()
        self.dataset = dataset
        self.endpoint_url = base + '/data/%s/acs/%s'
        self.definition_url = base + '/data/%s/acs/%s/variables/%s.json'

    def query(self, fields, geo, year):
        url = self.endpoint_url % (year, self.dataset)
        params = {'get': ",".join(fields), 'for': geo['for'], 'key': self._key}
        if 'in' in geo:
            params['in'] = geo['in']
        resp = self.session.get(url, params=params)
        if resp.status_code == 200:
            data = resp.json()
            headers = data.pop(0)
            types = [self._field_type(header, year) for header in headers]
            return [{header: (cast(item) if item is not None else None)
                     for header, cast, item in zip(headers, types, d)} for d in data]
        raise Exception(resp.text)

    def _field_type(self, field, year):
        url = self.definition_url % (year, self.dataset, field)
        resp = self.session.get(url, params={"key": self._key})
        types = {"fips-for": str, "fips-in": str, "int": float_or_str, "long": float_or_str,
                 "float": float, "string": str}
        if resp.status_code == 200:
            predicate_type = resp.json().get("predicateType", "string")
            return types[predicate_type]
        else:
            return str

base, key, dataset, year, fields, geo = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5].split(','), json.loads(sys.argv[6])
rows = ACSClient(base, key, dataset).query(fields, geo, year)
print(json.dumps([{k: [type(v).__name__, v] for k, v in r.items()} for r in rows]))
`;

let svc: Service;
let base: string;
beforeAll(async () => {
  svc = await startService();
  base = await svc.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await svc?.close();
});

type Decoded = Array<Record<string, [string, unknown]>>;

async function censusPy(dataset: string, year: number, fields: string[], geo: Record<string, string>): Promise<Decoded> {
  const { stdout } = await promisify(execFile)(
    'python3',
    ['-c', CENSUS_CLIENT, base, svc.keys.pro, dataset, String(year), fields.join(','), JSON.stringify(geo)],
    { timeout: 60_000 },
  );
  return JSON.parse(stdout) as Decoded;
}

async function json<T>(url: string): Promise<T> {
  const res = await svc.app.inject({ url });
  expect(res.statusCode, url).toBe(200);
  return res.json() as T;
}

/** The Bureau's own types of a vintage's acs1 codes (the verbatim list; `null` where it gave none). */
function bureauTypes(vintage: number): Map<string, string> {
  const file = path.join(SHARED_CENSUS, 'metadata', 'api_labels', 'acs1', `${vintage}.csv.gz`);
  const lines = gunzipSync(fs.readFileSync(file)).toString('utf8').trim().split('\n').slice(1);
  return new Map(lines.map((l) => [l.slice(0, l.indexOf(',')), l.slice(l.lastIndexOf(',') + 1)]));
}

describe('predicateType', () => {
  it('types every estimate and margin of every served dataset and vintage, as the Bureau does where it says', async () => {
    const catalog = await json<{ dataset: Array<{ c_vintage: number; c_dataset: string[] }> }>('/data.json');
    let compared = 0;
    const wrong: string[] = [];
    for (const d of catalog.dataset) {
      const root = `${d.c_vintage}/${d.c_dataset.join('/')}`;
      const doc = await json<{ variables: Record<string, { predicateType?: string; group: string }> }>(`/data/${root}/variables.json`);
      const own = d.c_dataset[1] === 'acs1' ? bureauTypes(d.c_vintage) : new Map<string, string>();
      for (const [code, v] of Object.entries(doc.variables)) {
        if (v.group === 'N/A') continue;
        if (v.predicateType !== 'int' && v.predicateType !== 'float') wrong.push(`${root} ${code}: ${v.predicateType}`);
        const bureau = own.get(code);
        if (bureau === 'int' || bureau === 'float') {
          if (v.predicateType !== bureau) wrong.push(`${root} ${code}: ${v.predicateType}, the Bureau's ${bureau}`);
          compared++;
        }
      }
    }
    expect(wrong.slice(0, 20)).toEqual([]);
    expect(compared).toBeGreaterThan(100_000);
    // A margin has its estimate's type; annotations are strings.
    expect((await json<{ predicateType: string }>('/data/2022/acs/acs5/variables/B25001_001M.json')).predicateType).toBe('int');
    expect((await json<{ predicateType: string }>('/data/2022/acs/acs5/variables/B25001_001MA.json')).predicateType).toBe('string');
    // Median age is the Bureau's float.
    expect((await json<{ predicateType: string }>('/data/2018/acs/acs1/variables/B01002_001E.json')).predicateType).toBe('float');
  }, 300_000);

  it('the Python census client gets numbers for acs5 values, as for acs1', async () => {
    const county = await censusPy('acs5', 2022, ['NAME', 'B01003_001E', 'B25001_001E', 'B25001_001M'], {
      for: 'county:453',
      in: 'state:48',
    });
    expect(county).toEqual([
      {
        NAME: ['str', 'Travis County, Texas'],
        B01003_001E: ['float', expect.any(Number)],
        B25001_001E: ['float', expect.any(Number)],
        B25001_001M: ['float', expect.any(Number)],
        state: ['str', '48'],
        county: ['str', '453'],
      },
    ]);
    const c2023 = await censusPy('acs5', 2023, ['B01003_001E', 'B25001_001E'], { for: 'county:037', in: 'state:06' });
    expect(c2023[0]!.B01003_001E![0]).toBe('float');
    expect(c2023[0]!.B25001_001E![0]).toBe('float');
    const metro = await censusPy('acs5', 2017, ['NAME', 'B19013_001E', 'B19013_001M', 'B03002_012E'], {
      for: 'metropolitan statistical area/micropolitan statistical area:12420',
    });
    for (const col of ['B19013_001E', 'B19013_001M', 'B03002_012E']) expect(metro[0]![col]![0], col).toBe('float');
    const state = await censusPy('acs1', 2018, ['NAME', 'B19013_001E'], { for: 'state:06' });
    expect(state[0]!.B19013_001E).toEqual(['float', 75277]);
  }, 120_000);
});
