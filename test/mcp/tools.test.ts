// The nine tools over a real listening server, with the official SDK client, on the test build.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connect, startMcpService, textOf, type McpService } from './support.js';

let svc: McpService;
let client: Client;

beforeAll(async () => {
  svc = await startMcpService();
  const { key } = await svc.issueKey('business');
  client = await connect(svc.url, key);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

describe('tools/list', () => {
  it('lists exactly the nine tools, each with a description and an object input schema', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'compare_geographies',
      'geocode',
      'get_census_data',
      'get_coverage',
      'get_timeseries',
      'list_datasets',
      'list_topics',
      'search_geographies',
      'search_variables',
    ]);
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(80);
      expect(t.inputSchema.type).toBe('object');
      expect(t.annotations?.readOnlyHint).toBe(true);
    }
    const data = tools.find((t) => t.name === 'get_census_data')!;
    expect(data.inputSchema.required).toEqual(['variables', 'geo']);
    expect(Object.keys(data.inputSchema.properties!)).toEqual(['variables', 'geo', 'dataset', 'vintage', 'include_geometry', 'dollars']);
    // The verbs' own descriptions reach the agent.
    expect(JSON.stringify(data.inputSchema.properties!.geo)).toContain('state:06');
    expect(tools.find((t) => t.name === 'get_timeseries')!.inputSchema.properties).toHaveProperty('from');
    expect(tools.find((t) => t.name === 'geocode')!.inputSchema.properties).toHaveProperty('address');
  });
});

describe('data tools', () => {
  it('get_census_data: California 2018 acs1 median household income with its MOE, source and period', async () => {
    const r = await call(client, 'get_census_data', { variables: 'B19013_001E', geo: 'state:06', dataset: 'acs1', vintage: 2018 });
    expect(r.isError).toBeFalsy();
    const text = textOf(r);
    expect(text).toContain('$75,277 ± $317');
    expect(text).toContain('California (state:06)');
    expect(text).toMatch(/ACS 1-year estimates, vintage 2018 \(reference period 2018\)/);
    expect(text).toMatch(/90% confidence/);
    const sc = r.structuredContent as { data: Array<Record<string, unknown>>; meta: Record<string, unknown> };
    expect(sc.data).toHaveLength(1);
    expect(sc.data[0]).toMatchObject({ geo_key: 'state:06', estimate: 75277, moe_numeric: 317, variable: expect.any(String) });
    expect(sc.meta.source).toMatchObject({ dataset: 'acs1', vintage_year: 2018, reference_period: '2018' });
  });

  it('get_census_data explains a missing value in words and passes the hint on', async () => {
    const r = await call(client, 'get_census_data', { variables: 'B19013_001E', geo: 'tract:48453001100', dataset: 'acs1', vintage: 2018 });
    expect(r.isError).toBeFalsy();
    const text = textOf(r);
    expect(text).toContain('no value [not_in_dataset]');
    expect(text).toMatch(/Annotations:\n- not_in_dataset: This dataset is not published for this geography level/);
    expect(text).toMatch(/Hint: .*dataset=acs5/);
  });

  it('compare_geographies: the difference, its MOE and the 90% significance verdict', async () => {
    const r = await call(client, 'compare_geographies', {
      variables: 'B19013_001E',
      geo: ['state:06', 'state:48'],
      dataset: 'acs1',
      vintage: 2018,
    });
    expect(r.isError).toBeFalsy();
    const sc = r.structuredContent as {
      data: Array<{
        geo_key: string;
        estimate: number;
        moe_numeric: number;
        comparison: { difference: number; difference_moe: number; significant: boolean } | null;
      }>;
    };
    const tx = sc.data.find((c) => c.geo_key === 'state:48')!;
    expect(tx.comparison!.difference).toBe(tx.estimate - 75277);
    expect(tx.comparison!.difference_moe).toBeCloseTo(Math.sqrt(317 ** 2 + tx.moe_numeric ** 2), 6);
    const text = textOf(r);
    expect(text).toContain('California (state:06): $75,277 ± $317 (reference)');
    expect(text).toMatch(
      /Texas \(state:48\): \$[\d,]+ ± \$[\d,]+ — difference vs state:06: −\$[\d,]+ ± \$[\d,]+, statistically significant at 90%/,
    );
  });

  it('get_timeseries: one line per vintage, and unpublished years say why', async () => {
    const r = await call(client, 'get_timeseries', { variables: 'B19013_001E', geo: 'state:06', dataset: 'acs1', from: 2017, to: 2021 });
    expect(r.isError).toBeFalsy();
    const sc = r.structuredContent as {
      data: Array<{ vintage: number; estimate: number | null; estimate_annotation: { code: string } | null }>;
      meta: { vintages: number[] };
    };
    expect(sc.meta.vintages).toEqual([2017, 2018, 2019, 2021]);
    expect(sc.data.find((c) => c.vintage === 2018)!.estimate).toBe(75277);
    const text = textOf(r);
    expect(text).toMatch(/ {2}2018: \$75,277 ± \$317/);
    for (const y of [2017, 2019, 2021]) expect(text).toMatch(new RegExp(` {2}${y}: `));
  });

  it('a Business key can expand a block-group wildcard', async () => {
    const r = await call(client, 'get_census_data', { variables: 'B01003_001E', geo: 'block_group:48453000101*' });
    expect(r.isError, textOf(r)).toBeFalsy();
    const sc = r.structuredContent as { data: Array<{ geo_key: string; geo_type: string }> };
    expect(sc.data.length).toBeGreaterThan(1);
    expect(sc.data.every((c) => c.geo_type === 'block_group' && c.geo_key.startsWith('block_group:48453000101'))).toBe(true);
  });
});

describe('lookup tools', () => {
  it('search_variables finds median household income by words and by census table', async () => {
    const r = await call(client, 'search_variables', { search: 'median household income' });
    expect(r.isError).toBeFalsy();
    const names = (r.structuredContent as { data: Array<{ census_code: string | null }> }).data.map((v) => v.census_code);
    expect(names).toContain('B19013_001E');
    expect(textOf(r)).toMatch(/variables match; showing 1–/);
    expect(textOf(r)).toMatch(/\[B19013_001E\] \(dollar, topic /);
    const byCode = await call(client, 'search_variables', { search: 'B19013' });
    expect(textOf(byCode)).toContain('matched census codes: B19013_001E');
  });

  it('search_geographies finds Travis County by name and lists its tracts by parent', async () => {
    const r = await call(client, 'search_geographies', { search: 'Travis', type: 'county' });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toMatch(/- county:48453: Travis County, Texas \(county, population [\d,]+/);
    const tracts = await call(client, 'search_geographies', { type: 'tract', parent: 'county:48453', limit: 5 });
    const sc = tracts.structuredContent as { data: Array<{ geo_key: string }>; page: { total: number } };
    expect(sc.data).toHaveLength(5);
    expect(sc.page.total).toBeGreaterThan(200);
    expect(textOf(tracts)).toMatch(/Next page: call again with offset 5/);
  });

  it('search_geographies with a parent named by a former title says so, with the fields (issue 37 §5, §8)', async () => {
    const r = await call(client, 'search_geographies', { type: 'county', parent: 'Austin-Round Rock, TX' });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toContain('Note: "Austin-Round Rock, TX" is the ACS 2017 title of metro:12420');
    const meta = (r.structuredContent as { meta: { former_name: Record<string, unknown> } }).meta;
    expect(meta.former_name).toMatchObject({
      former_name: 'Austin-Round Rock, TX',
      current_name: 'Austin-Round Rock-San Marcos, TX',
      geo_key: 'metro:12420',
    });
  });

  it('list_topics and list_datasets describe the catalog', async () => {
    const topics = await call(client, 'list_topics');
    expect(textOf(topics)).toMatch(/- economics: .+ \(\d+ variables\)/);
    const datasets = await call(client, 'list_datasets');
    const sc = datasets.structuredContent as { data: Array<{ dataset: string; vintages: number[] }> };
    expect(sc.data.map((d) => d.dataset)).toEqual(['acs5', 'acs1']);
    expect(sc.data[1]!.vintages).toContain(2018);
    expect(textOf(datasets)).toMatch(/- acs1: American Community Survey 1-year estimates.*Vintages [\d, ]*2018/);
  });

  it('geocode a point to its containing geographies with keys', async () => {
    const r = await call(client, 'geocode', { lat: 38.8977, lng: -77.0365 });
    expect(r.isError, textOf(r)).toBeFalsy();
    const text = textOf(r);
    expect(text).toMatch(/^Point 38.8977, -77.0365: matched\./);
    expect(text).toMatch(/state: District of Columbia \(state:11\)/);
    expect(text).toMatch(/county: .*\(county:11001\)/);
  });
});

describe('errors are tool results, never transport failures', () => {
  it('a missing required argument and an invented one: field errors and a next step', async () => {
    const r = await call(client, 'get_census_data', { variables: 'B19013_001E', year: 2018 });
    expect(r.isError).toBe(true);
    const text = textOf(r);
    expect(text).toMatch(/^Error: Invalid request parameter \(422\)/);
    expect(text).toContain('- arguments → geo: Field required: geo');
    expect(text).toContain('- arguments → year: unknown argument "year"; did you mean "vintage"?');
    expect(text).toMatch(/Next step: /);
    const problem = (r.structuredContent as { problem: { type: string; status: number; errors: Array<{ field: string; type: string }> } })
      .problem;
    expect(problem.type).toMatch(/\/validation-error$/);
    expect(problem.errors.map((e) => e.type).sort()).toEqual(['extra_forbidden', 'missing']);
  });

  it("a wrongly typed argument: the spec's vocabulary, as over REST", async () => {
    const r = await call(client, 'get_census_data', { variables: 'B19013_001E', geo: 'state:06', vintage: '2018' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/arguments → vintage: Input should be a valid (integer|number)/);
    const problem = (r.structuredContent as { problem: { status: number; errors: Array<{ type: string }> } }).problem;
    expect(problem.status).toBe(422);
    expect(problem.errors[0]!.type).toMatch(/^(int|float)_parsing$/);
  });

  it('an unknown geography points at search_geographies', async () => {
    const r = await call(client, 'get_census_data', { variables: 'B19013_001E', geo: 'state:6' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Next step: Call search_geographies/);
    expect((r.structuredContent as { problem: { type: string } }).problem.type).toMatch(/\/(geography-not-found|invalid-geo-format)$/);
  });

  it('an unknown variable points at search_variables with suggestions', async () => {
    const r = await call(client, 'get_census_data', { variables: 'median_income_2018', geo: 'state:06' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Variable not found \(404\)/);
    expect(textOf(r)).toMatch(/Next step: Call search_variables/);
  });

  it('an unsupported vintage points at list_datasets', async () => {
    const r = await call(client, 'get_census_data', { variables: 'B19013_001E', geo: 'state:06', vintage: 1999 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Vintage not supported \(400\)/);
    expect(textOf(r)).toMatch(/Next step: Call list_datasets/);
  });

  it("an operation's own validation names the field as an argument, not a query parameter", async () => {
    const r = await call(client, 'search_variables', { search: 'poverty', topic: 'nope' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Unknown topic "nope"\. Topics: core, /);
    expect(textOf(r)).toContain('- arguments → topic: Expected one of: core');
    expect((r.structuredContent as { problem: { errors: Array<{ field: string }> } }).problem.errors[0]!.field).toBe('arguments → topic');
  });

  it('geocode with neither address nor coordinates, and an unknown tool name', async () => {
    const r = await call(client, 'geocode', {});
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/give either address or lat and lng/);
    const unknown = await call(client, 'get_weather', {});
    expect(unknown.isError).toBe(true);
    expect(textOf(unknown)).toMatch(/No tool named "get_weather"/);
  });
});
