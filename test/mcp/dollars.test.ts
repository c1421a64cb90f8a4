// dollars= and compare_to= through the official MCP SDK client: the tools take them from the
// verbs' schemas, and the answer (structured and text) carries the adjustment and the test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { loadPriceIndex } from '../../src/store/price-index.js';
import { call, connect, startMcpService, textOf, type McpService } from './support.js';
import { readApiFile } from '../support/census-api-file.js';

let svc: McpService;
let client: Client;
const cpi = loadPriceIndex().index!;

beforeAll(async () => {
  svc = await startMcpService();
  const { key } = await svc.issueKey('pioneer');
  client = await connect(svc.url, key);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

describe('dollars= and compare_to= over MCP', () => {
  it('the three data tools list dollars; get_timeseries and compare_geographies list compare_to', async () => {
    const { tools } = await client.listTools();
    for (const name of ['get_census_data', 'compare_geographies', 'get_timeseries']) {
      expect(tools.find((t) => t.name === name)!.inputSchema.properties, name).toHaveProperty('dollars');
    }
    expect(tools.find((t) => t.name === 'get_timeseries')!.inputSchema.properties).toHaveProperty('compare_to');
    expect(tools.find((t) => t.name === 'compare_geographies')!.inputSchema.properties).toHaveProperty('compare_to');
  });

  it('get_census_data restates dollars and says so in the text', async () => {
    const r = await call(client, 'get_census_data', {
      variables: 'B19013_001E',
      geo: 'state:06',
      dataset: 'acs1',
      vintage: 2018,
      dollars: 2023,
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    const f = cpi.annual.get(2023)! / cpi.annual.get(2018)!;
    const sc = r.structuredContent as {
      data: Array<{ estimate: number; dollars: { factor: number } }>;
      meta: { dollars: { target_year: number } };
    };
    expect(sc.data[0]!.estimate).toBeCloseTo(75277 * f, 6);
    expect(sc.data[0]!.dollars.factor).toBe(f);
    expect(sc.meta.dollars.target_year).toBe(2023);
    expect(textOf(r)).toContain(`$${Math.round(75277 * f).toLocaleString('en-US')}`);
    expect(textOf(r)).toMatch(/restated in 2023 dollars with the R-CPI-U-RS/);
  });

  it('get_timeseries with compare_to gives each year its change and verdict, in structured content and text', async () => {
    const r = await call(client, 'get_timeseries', {
      variables: 'B19013_001E',
      geo: 'nation:1',
      dataset: 'acs1',
      from: 2012,
      to: 2018,
      compare_to: 2012,
      dollars: 2018,
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    const sc = r.structuredContent as {
      data: Array<{ vintage: number; change: { significant: boolean | null; base_vintage: number } | null }>;
    };
    expect(sc.data.find((c) => c.vintage === 2012)!.change).toBeNull();
    const y2018 = sc.data.find((c) => c.vintage === 2018)!.change!;
    expect(y2018.base_vintage).toBe(2012);
    expect(typeof y2018.significant).toBe('boolean');
    const text = textOf(r);
    expect(text).toMatch(/ {2}2012: .*\(base year\)/);
    expect(text).toMatch(
      new RegExp(
        ` {2}2018: .* — change vs 2012: [+−]\\$[\\d,]+ ± \\$[\\d,]+ \\([+−][\\d.]+%\\), ${y2018.significant ? 'statistically' : 'not statistically'} significant at 90%`,
      ),
    );
  });

  it('compare_geographies in its time form shows the change in the text', async () => {
    const r = await call(client, 'compare_geographies', {
      variables: 'B19013_001E',
      geo: 'nation:1',
      dataset: 'acs1',
      vintage: 2018,
      compare_to: 2012,
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    expect(textOf(r)).toMatch(/ — change vs 2012: [+−]\$[\d,]+ ± \$[\d,]+ \([+−][\d.]+%\), (not )?statistically significant at 90%/);
    expect(textOf(r)).toMatch(/compared as published/);
  });

  it('compare_geographies with a custom region: the sum in constant dollars and its change from the base year', async () => {
    const r = await call(client, 'compare_geographies', {
      variables: 'B19025_001E',
      geo: 'region(state:41,state:53)',
      dataset: 'acs1',
      vintage: 2018,
      compare_to: 2012,
      dollars: 2018,
    });
    expect(r.isError, textOf(r)).toBeFalsy();
    // Expected from the raw files: Oregon + Washington aggregate household income, each year
    // restated in 2018 dollars, MOE √ΣMOE² × the same factor.
    const inDollars2018 = (vintage: number) => {
      const rows = readApiFile(vintage, 'acs1', 'state', 'B19025').filter((x) => ['41', '53'].includes(x.state!));
      const f = cpi.annual.get(2018)! / cpi.annual.get(vintage)!;
      return {
        e: rows.reduce((s, x) => s + Number(x.B19025_001E), 0) * f,
        m: Math.sqrt(rows.reduce((s, x) => s + Number(x.B19025_001M) ** 2, 0)) * f,
      };
    };
    const [base, later] = [inDollars2018(2012), inDollars2018(2018)];
    const sc = r.structuredContent as {
      data: Array<{ geo_key: string; estimate: number; change: { difference: number; difference_moe: number; significant: boolean } }>;
    };
    const cell = sc.data.find((c) => c.geo_key === 'region(state:41,state:53)')!;
    expect(cell.estimate).toBeCloseTo(later.e, 0);
    expect(cell.change.difference).toBeCloseTo(later.e - base.e, 0);
    expect(cell.change.difference_moe).toBeCloseTo(Math.sqrt(base.m ** 2 + later.m ** 2), 3);
    expect(cell.change.significant).toBe(Math.abs(later.e - base.e) > Math.sqrt(base.m ** 2 + later.m ** 2));
    expect(textOf(r)).toMatch(/Region of 2 states/);
  });

  it('a year outside the index is a tool error naming the years', async () => {
    const r = await call(client, 'get_census_data', {
      variables: 'B19013_001E',
      geo: 'state:06',
      dataset: 'acs1',
      vintage: 2018,
      dollars: 1950,
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain(`${cpi.first}–${cpi.last}`);
  });
});
