// region(state:*) has Puerto Rico among its 52 members, so it is not the nation (the ACS nation is
// the 50 states and DC): every answer with such a region says so in meta.regions[].caveats and in
// meta.notes, on /v1/data, /v1/compare, /v1/timeseries and the MCP tools alike; a region without
// Puerto Rican members carries none. Figures from the Bureau's files: 2018 households
// (B19001_001E) of the 52 sum to 122,699,817, the nation's are 121,520,180.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startService, type Service } from '../../support/service.js';
import { readApiFile } from '../../support/census-api-file.js';
import { call, connect, startMcpService, textOf, type McpService } from '../../mcp/support.js';

let svc: Service;
let mcp: McpService;
let client: Client;
beforeAll(async () => {
  svc = await startService();
  mcp = await startMcpService();
  client = await connect(mcp.url, (await mcp.issueKey('pro')).key);
}, 300_000);
afterAll(async () => {
  await client?.close();
  await mcp?.close();
  await svc?.close();
});

const get = (url: string) => svc.app.inject({ url, headers: { 'x-api-key': svc.keys.pro } });

interface RegionMetaBody {
  regions: Array<{ geo_key: string; member_count: number; caveats: Array<{ code: string; members: number; detail: string }> }>;
  notes: string[];
}

function expectPuertoRicoCaveat(meta: RegionMetaBody) {
  const r = meta.regions.find((x) => x.geo_key === 'region(state:*)') ?? meta.regions[0]!;
  expect(r.member_count).toBe(52);
  expect(r.caveats).toEqual([{ code: 'includes_puerto_rico', members: 1, detail: expect.stringMatching(/not the nation/) }]);
  expect(meta.notes.some((n) => /includes Puerto Rico/.test(n))).toBe(true);
}

describe('a region of every state includes Puerto Rico and says so', () => {
  it('/v1/data: the sum is the 52 published values, and the answer says it is not the nation', async () => {
    const res = await get('/v1/data?variables=B19001_001E&geo=region(state:*)&dataset=acs1&vintage=2018');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { data: Array<{ estimate: number }>; meta: RegionMetaBody };
    const states = readApiFile(2018, 'acs1', 'state', 'B19001');
    expect(states).toHaveLength(52);
    expect(body.data[0]!.estimate).toBe(states.reduce((s, r) => s + Number(r.B19001_001E), 0));
    expect(body.data[0]!.estimate).toBe(122_699_817);
    expectPuertoRicoCaveat(body.meta);
    const nation = (await get('/v1/data?variables=B19001_001E&geo=nation:1&dataset=acs1&vintage=2018')).json() as {
      data: Array<{ estimate: number }>;
    };
    expect(nation.data[0]!.estimate).toBe(121_520_180);
  });

  it('a region without Puerto Rico carries no caveat; one with its state does', async () => {
    const without = (await get('/v1/data?variables=B19001_001E&geo=region(state:06,state:48)&dataset=acs1&vintage=2018')).json() as {
      meta: RegionMetaBody;
    };
    expect(without.meta.regions[0]!.caveats).toEqual([]);
    expect(without.meta.notes.some((n) => /Puerto Rico/.test(n))).toBe(false);
    const withPr = (await get('/v1/data?variables=B19001_001E&geo=region(state:12,state:72)&dataset=acs1&vintage=2018')).json() as {
      meta: RegionMetaBody;
    };
    expect(withPr.meta.regions[0]!.caveats.map((c) => c.code)).toEqual(['includes_puerto_rico']);
  });

  it('/v1/compare and /v1/timeseries say the same', async () => {
    const compare = await get('/v1/compare?variables=B19001_001E&geo=nation:1,region(state:*)&dataset=acs1&vintage=2018');
    expect(compare.statusCode, compare.body).toBe(200);
    expectPuertoRicoCaveat((compare.json() as { meta: RegionMetaBody }).meta);
    const series = await get('/v1/timeseries?variables=B19001_001E&geo=region(state:*)&dataset=acs1&from=2017&to=2018');
    expect(series.statusCode, series.body).toBe(200);
    expectPuertoRicoCaveat((series.json() as { meta: RegionMetaBody }).meta);
  });

  it('the MCP tool says the same, in structured content and text', async () => {
    const r = await call(client, 'get_census_data', { variables: 'B19001_001E', geo: 'region(state:*)', dataset: 'acs1', vintage: 2018 });
    expect(r.isError, textOf(r)).toBeFalsy();
    expectPuertoRicoCaveat((r.structuredContent as { meta: RegionMetaBody }).meta);
    expect(textOf(r)).toMatch(/includes Puerto Rico/);
  });
});
