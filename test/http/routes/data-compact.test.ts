// /v1/data?format=compact: the same cells as the long format, as a columnar table. Every cell of
// the long answer must be rebuildable from the compact one, value for value.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../support/service.js';

let svc: Service;

beforeAll(async () => {
  svc = await startService();
}, 300_000);
afterAll(() => svc?.close());

const VARS = 'B19013_001E,B01001_002E,B01002_001E,B17001_002E,B25077_001E,B01003_001E,B02001_002E,B25001_001E,B25064_001E,B15003_022E';

describe('GET /v1/data?format=compact', () => {
  it('holds exactly the cells of the long format (values, nulls, annotations) in far fewer bytes', async () => {
    const url = `/v1/data?variables=${VARS}&geo=state:*&dataset=acs1&vintage=2018`;
    const headers = { 'x-api-key': svc.keys.pro };
    const long = await svc.app.inject({ url, headers });
    const compact = await svc.app.inject({ url: `${url}&format=compact`, headers });
    expect(long.statusCode).toBe(200);
    expect(compact.statusCode).toBe(200);
    expect(compact.headers['content-type']).toMatch(/^application\/json/);
    expect(compact.headers.ratelimit).toBeTruthy();
    const cells = long.json().data as Array<Record<string, unknown>>;
    const body = compact.json();
    const t = body.data;
    expect(t).toMatchObject({ format: 'compact', dataset: 'acs1', vintage: 2018 });
    expect(t.geographies.length * t.variables.length).toBe(cells.length);
    const rebuilt = [];
    for (const [g, geo] of t.geographies.entries()) {
      for (const [v, variable] of t.variables.entries()) {
        const ea = t.estimate_annotation[g][v];
        const ma = t.moe_annotation[g][v];
        rebuilt.push({
          ...geo,
          ...variable,
          dataset: t.dataset,
          vintage: t.vintage,
          estimate: t.estimate[g][v],
          moe_numeric: t.moe_numeric[g][v],
          estimate_annotation: ea === null ? null : t.annotations[ea],
          moe_annotation: ma === null ? null : t.annotations[ma],
        });
      }
    }
    expect(rebuilt).toEqual(cells);
    // The request exercises nulls with annotations, not only numbers.
    expect(cells.some((c) => c.estimate === null && c.estimate_annotation !== null)).toBe(true);
    expect(cells.find((c) => c.geo_key === 'state:06' && c.census_code === 'B19013_001E')).toMatchObject({
      estimate: 75277,
      moe_numeric: 317,
    });
    expect(body.meta).toEqual({ ...long.json().meta, request_id: body.meta.request_id, elapsed_ms: body.meta.elapsed_ms });
    expect(compact.body.length * 4).toBeLessThan(long.body.length);
  });

  it('is documented in the OpenAPI description as a format of /v1/data', async () => {
    const doc = (await svc.app.inject({ url: '/openapi.json' })).json();
    const op = doc.paths['/v1/data'].get;
    const format = op.parameters.find((p: { name: string }) => p.name === 'format');
    expect(format.schema.enum).toEqual(['json', 'csv', 'compact']);
    expect(JSON.stringify(op.responses['200'])).toContain('compact');
  });

  it('rejects an unknown format with 422', async () => {
    const res = await svc.app.inject({
      url: '/v1/data?variables=B19013_001E&geo=state:06&format=columns',
      headers: { 'x-api-key': svc.keys.pro },
    });
    expect(res.statusCode).toBe(422);
  });
});
