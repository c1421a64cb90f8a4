// One verb, two transports: every MCP tool answers with the same data as its REST endpoint for the
// same question, and every example in the tool descriptions and argument schemas resolves.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TOOL_NAMES } from '../../src/mcp/tools.js';
import { call, connect, startMcpService, type McpService } from './support.js';

let svc: McpService;
let client: Client;
let key: string;

beforeAll(async () => {
  svc = await startMcpService();
  key = (await svc.issueKey('enterprise')).key;
  client = await connect(svc.url, key);
});
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

async function rest(url: string) {
  const res = await svc.app.inject({ url, headers: { 'x-api-key': key } });
  return { status: res.statusCode, body: res.json() as { data: unknown } };
}

// The same question asked of each tool and of its REST endpoint.
const PAIRS: Array<{ tool: string; args: Record<string, unknown>; url: string }> = [
  {
    tool: 'get_census_data',
    args: { variables: 'B19013_001E,core_poverty_rate', geo: 'state:06;state:48', dataset: 'acs1', vintage: 2018 },
    url: '/v1/data?variables=B19013_001E,core_poverty_rate&geo=state:06;state:48&dataset=acs1&vintage=2018',
  },
  {
    tool: 'compare_geographies',
    args: { variables: 'B19013_001E', geo: ['state:06', 'state:48'], dataset: 'acs1', vintage: 2018 },
    url: '/v1/compare?variables=B19013_001E&geo=state:06&geo=state:48&dataset=acs1&vintage=2018',
  },
  {
    tool: 'get_timeseries',
    args: { variables: 'B01003_001E', geo: 'state:06', dataset: 'acs1', from: 2016, to: 2019 },
    url: '/v1/timeseries?variables=B01003_001E&geo=state:06&dataset=acs1&from=2016&to=2019',
  },
  {
    tool: 'get_coverage',
    args: { variables: 'B01003_001E,core_poverty_rate', geo: 'county:Travis County, TX' },
    url: `/v1/coverage?variables=B01003_001E,core_poverty_rate&geo=${encodeURIComponent('county:Travis County, TX')}`,
  },
  // Custom regions: the same geo string on both transports.
  {
    tool: 'get_census_data',
    args: { variables: 'B25001_001E', geo: 'region(county:06001,county:Contra Costa County, CA)', vintage: 2022 },
    url: `/v1/data?variables=B25001_001E&geo=${encodeURIComponent('region(county:06001,county:Contra Costa County, CA)')}&vintage=2022`,
  },
  {
    tool: 'compare_geographies',
    args: { variables: 'core_poverty_rate', geo: ['state:06', 'region(state:41,state:53)'], dataset: 'acs1', vintage: 2018 },
    url: `/v1/compare?variables=core_poverty_rate&geo=state:06&geo=${encodeURIComponent('region(state:41,state:53)')}&dataset=acs1&vintage=2018`,
  },
  { tool: 'search_variables', args: { search: 'commute time', limit: 5 }, url: '/v1/variables?search=commute%20time&limit=5' },
  { tool: 'search_geographies', args: { search: 'Travis', limit: 5 }, url: '/v1/geographies?search=Travis&limit=5' },
  { tool: 'list_topics', args: {}, url: '/v1/topics' },
  { tool: 'list_datasets', args: {}, url: '/v1/datasets' },
  { tool: 'geocode', args: { lat: 38.8977, lng: -77.0365 }, url: '/v1/geocode?lat=38.8977&lng=-77.0365' },
];

describe('REST ↔ MCP parity', () => {
  it('covers every tool', () => {
    expect([...new Set(PAIRS.map((p) => p.tool))].sort()).toEqual([...TOOL_NAMES].sort());
  });

  it.each(PAIRS)('$tool answers what $url answers', async ({ tool, args, url }) => {
    const viaRest = await rest(url);
    expect(viaRest.status).toBe(200);
    const viaMcp = await call(client, tool, args);
    expect(viaMcp.isError ?? false).toBe(false);
    const mcpData = JSON.parse(JSON.stringify((viaMcp.structuredContent as { data: unknown }).data));
    // REST serializes through the documented response schema; MCP may carry more, never less or other.
    expect(mcpData).toMatchObject(viaRest.body.data as object);
  });
});

describe('examples in the tool descriptions', () => {
  it('every variable, census code and geography key they mention resolves', async () => {
    const { tools } = await client.listTools();
    const text = JSON.stringify(tools);
    const codes = new Set(text.match(/\b[BC]\d{5}[A-Z]{0,2}_\d{3}[EM]\b/g) ?? []);
    const apiNames = new Set(
      text.match(/\b(?:core|demographics|economics|environment|equity|health|housing|social|transport)_[a-z0-9_]+\b/g) ?? [],
    );
    const geoKeys = new Set(text.match(/\b(?:nation|state|county|metro|cd|tract|block_group):\d+(?![\d*])/g) ?? []);
    expect(codes.size + apiNames.size + geoKeys.size).toBeGreaterThan(5);
    for (const name of apiNames) expect((await rest(`/v1/variables/${name}`)).status, name).toBe(200);
    for (const code of codes) {
      const r = await rest(`/v1/data?variables=${code}&geo=state:06&dataset=acs1&vintage=2018`);
      expect(r.status, code).toBe(200);
    }
    for (const geo of geoKeys) expect((await rest(`/v1/geographies/${geo}`)).status, geo).toBe(200);
  });
});

describe('the DISABLED_FEATURES kill switch over MCP', () => {
  it('switches the tools off as it does their REST routes: a tool error naming the feature', async () => {
    const off = await startMcpService({ config: { DISABLED_FEATURES: ['data', 'geocode'] } });
    const offKey = (await off.issueKey('enterprise')).key;
    const offClient = await connect(off.url, offKey);
    try {
      for (const [tool, args, feature] of [
        ['get_census_data', { variables: 'B19013_001E', geo: 'state:06', dataset: 'acs1', vintage: 2018 }, 'data'],
        ['geocode', { lat: 38.8977, lng: -77.0365 }, 'geocode'],
      ] as const) {
        const r = await call(offClient, tool, args);
        expect(r.isError, tool).toBe(true);
        expect((r.structuredContent as { problem: { type: string; feature: string } }).problem).toMatchObject({ feature });
      }
      const topics = await call(offClient, 'list_topics');
      expect(topics.isError ?? false).toBe(false);
    } finally {
      await offClient.close();
      await off.close();
    }
  });
});
