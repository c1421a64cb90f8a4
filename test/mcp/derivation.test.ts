// One verb, one schema: REST's query parameters and the MCP tools' arguments are derived from the
// verb's input, and the same bad question gets the same refusal over both transports (the official
// MCP SDK client against the real service), placed where each transport's caller wrote it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { TOOLS } from '../../src/mcp/tools.js';
import { getData } from '../../src/verbs/get-data.js';
import { getTimeseries } from '../../src/verbs/get-timeseries.js';
import { compareGeographies } from '../../src/verbs/compare-geographies.js';
import { getCoverage } from '../../src/verbs/get-coverage.js';
import { searchVariables, listTopics, listDatasets } from '../../src/verbs/catalog.js';
import { geographiesList } from '../../src/verbs/geographies-list.js';
import { geocode } from '../../src/verbs/geocode.js';
import { call, connect, startMcpService, type McpService } from './support.js';

let svc: McpService;
let client: Client;
let key: string;

beforeAll(async () => {
  svc = await startMcpService();
  key = (await svc.issueKey('pro')).key;
  client = await connect(svc.url, key);
});
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

interface Problem {
  type: string;
  status: number;
  detail: string;
  errors: Array<{ field: string; type: string }> | null;
}

async function rest(url: string): Promise<Problem & { httpStatus: number }> {
  const res = await svc.app.inject({ url, headers: { 'x-api-key': key } });
  return { ...(res.json() as Problem), httpStatus: res.statusCode };
}

async function mcp(tool: string, args: Record<string, unknown>): Promise<Problem> {
  const r = await call(client, tool, args);
  expect(r.isError, tool).toBe(true);
  return (r.structuredContent as { problem: Problem }).problem;
}

const fieldsOf = (p: Problem) => (p.errors ?? []).map((e) => `${e.field.split(' → ').pop()}:${e.type}`);

describe('schemas derived from the verb', () => {
  const PAIRS: Array<{ tool: string; path: string; verb: { spec: { input: { shape: object } } }; restOnly: string[] }> = [
    { tool: 'get_census_data', path: '/v1/data', verb: getData, restOnly: ['format'] },
    { tool: 'compare_geographies', path: '/v1/compare', verb: compareGeographies, restOnly: ['format'] },
    { tool: 'get_timeseries', path: '/v1/timeseries', verb: getTimeseries, restOnly: ['format'] },
    { tool: 'get_coverage', path: '/v1/coverage', verb: getCoverage, restOnly: [] },
    { tool: 'search_variables', path: '/v1/variables', verb: searchVariables, restOnly: [] },
    { tool: 'search_geographies', path: '/v1/geographies', verb: geographiesList, restOnly: [] },
    { tool: 'list_topics', path: '/v1/topics', verb: listTopics, restOnly: [] },
    { tool: 'list_datasets', path: '/v1/datasets', verb: listDatasets, restOnly: [] },
    { tool: 'geocode', path: '/v1/geocode', verb: geocode, restOnly: ['lon'] },
  ];

  it('every tool has the arguments of its verb and REST the same parameters (plus its renderings and aliases)', async () => {
    const doc = (await svc.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, { get: { parameters?: Array<{ name: string; in: string }> } }>;
    };
    const { tools } = await client.listTools();
    expect(PAIRS.map((p) => p.tool).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    for (const p of PAIRS) {
      const fields = Object.keys(p.verb.spec.input.shape).sort();
      const tool = tools.find((t) => t.name === p.tool)!;
      expect(Object.keys(tool.inputSchema.properties ?? {}).sort(), p.tool).toEqual(fields);
      const query = (doc.paths[p.path]!.get.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name);
      expect(query.filter((n) => !p.restOnly.includes(n)).sort(), p.path).toEqual(fields);
    }
  });
});

describe('the same refusal over REST and MCP', () => {
  const CASES: Array<{ what: string; tool: string; args: Record<string, unknown>; url: string }> = [
    {
      what: 'an unknown variable (404, from inside the verb)',
      tool: 'get_census_data',
      args: { variables: 'no_such_variable_anywhere', geo: 'state:06', dataset: 'acs1', vintage: 2018 },
      url: '/v1/data?variables=no_such_variable_anywhere&geo=state:06&dataset=acs1&vintage=2018',
    },
    {
      what: 'a block-group wildcard on the Pro plan (403, the wildcard gate)',
      tool: 'get_census_data',
      args: { variables: 'B01003_001E', geo: 'block_group:48453*', vintage: 2023 },
      url: '/v1/data?variables=B01003_001E&geo=block_group:48453*&vintage=2023',
    },
    {
      what: 'a range running backwards (400 naming from)',
      tool: 'get_timeseries',
      args: { variables: 'B01003_001E', geo: 'state:06', dataset: 'acs1', from: 2019, to: 2016 },
      url: '/v1/timeseries?variables=B01003_001E&geo=state:06&dataset=acs1&from=2019&to=2016',
    },
    {
      what: 'a vintage the dataset does not have',
      tool: 'compare_geographies',
      args: { variables: 'B01003_001E', geo: ['state:06', 'state:48'], vintage: 1990 },
      url: '/v1/compare?variables=B01003_001E&geo=state:06&geo=state:48&vintage=1990',
    },
    {
      what: 'two places asked of get_coverage (400 naming geo)',
      tool: 'get_coverage',
      args: { variables: 'B01003_001E', geo: 'state:06;state:48' },
      url: '/v1/coverage?variables=B01003_001E&geo=state:06;state:48',
    },
    {
      what: 'an unknown topic (400 naming topic)',
      tool: 'search_variables',
      args: { search: 'income', topic: 'astrology' },
      url: '/v1/variables?search=income&topic=astrology',
    },
    {
      what: 'one coordinate without the other (400 naming lng)',
      tool: 'geocode',
      args: { lat: 38.9 },
      url: '/v1/geocode?lat=38.9',
    },
  ];

  it.each(CASES)('$what', async ({ tool, args, url }) => {
    const viaRest = await rest(url);
    const viaMcp = await mcp(tool, args);
    expect(viaRest.httpStatus).toBeGreaterThanOrEqual(400);
    expect(viaMcp).toMatchObject({ type: viaRest.type, status: viaRest.status, detail: viaRest.detail });
    expect(fieldsOf(viaMcp)).toEqual(fieldsOf(viaRest));
    // Each transport places the field where its caller wrote it.
    for (const e of viaRest.errors ?? []) expect(e.field).toMatch(/^(query|path) → /);
    for (const e of viaMcp.errors ?? []) expect(e.field).toMatch(/^arguments → /);
  });

  it('a vintage that is not a number is int_parsing (422) on both, not float_parsing on MCP', async () => {
    const viaRest = await rest('/v1/data?variables=B01003_001E&geo=state:06&dataset=acs1&vintage=abc');
    const viaMcp = await mcp('get_census_data', { variables: 'B01003_001E', geo: 'state:06', dataset: 'acs1', vintage: 'abc' });
    expect(viaRest.status).toBe(422);
    expect(fieldsOf(viaRest)).toEqual(['vintage:int_parsing']);
    expect(viaMcp).toMatchObject({ type: viaRest.type, status: 422 });
    expect(fieldsOf(viaMcp)).toEqual(['vintage:int_parsing']);
  });

  it('an unknown parameter is a 400 naming it on both (extra_forbidden), never silently ignored', async () => {
    const viaRest = await rest('/v1/variables?search=income&page_size=8');
    const viaMcp = await mcp('search_variables', { search: 'income', page_size: 8 });
    expect(viaRest.status).toBe(400);
    expect(fieldsOf(viaRest)).toEqual(['page_size:extra_forbidden']);
    expect(viaRest.detail).toContain('page_size');
    expect(viaMcp).toMatchObject({ type: viaRest.type, status: 400 });
    expect(fieldsOf(viaMcp)).toEqual(['page_size:extra_forbidden']);
  });

  it('an out-of-range value is refused by the same rule on both (REST reads the query string first)', async () => {
    const viaRest = await rest('/v1/geocode?lat=95&lng=0');
    const viaMcp = await mcp('geocode', { lat: 95, lng: 0 });
    expect(viaRest.status).toBe(400);
    expect(viaMcp).toMatchObject({ type: viaRest.type, status: viaRest.status });
    expect(fieldsOf(viaMcp)).toEqual(fieldsOf(viaRest));
  });
});

describe('the kill switch on both transports', () => {
  it('DISABLED_FEATURES=data switches off the REST routes and the MCP tools of the data verbs alike', async () => {
    const off = await startMcpService({ config: { DISABLED_FEATURES: ['data'] } });
    const offKey = (await off.issueKey('pro')).key;
    const offClient = await connect(off.url, offKey);
    try {
      const res = await off.app.inject({ url: '/v1/timeseries?variables=B01003_001E&geo=state:06', headers: { 'x-api-key': offKey } });
      expect(res.statusCode).toBe(503);
      const restProblem = res.json() as Problem & { feature: string };
      const r = await call(offClient, 'get_timeseries', { variables: 'B01003_001E', geo: 'state:06' });
      expect(r.isError).toBe(true);
      const mcpProblem = (r.structuredContent as { problem: Problem & { feature: string } }).problem;
      expect(mcpProblem).toMatchObject({ type: restProblem.type, status: 503, detail: restProblem.detail, feature: 'data' });
      // Other verbs keep working on both.
      expect((await off.app.inject({ url: '/v1/topics', headers: { 'x-api-key': offKey } })).statusCode).toBe(200);
      expect((await call(offClient, 'list_topics')).isError ?? false).toBe(false);
    } finally {
      await offClient.close();
      await off.close();
    }
  });
});
