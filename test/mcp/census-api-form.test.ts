// search_variables names, for every result with a census code, the same code's form on the
// Census-API-compatible endpoint (src/mcp/render.ts), through the official SDK client; the code it
// names is one the service's own Census API documents describe for that dataset.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connect, startMcpService, textOf, type McpService } from './support.js';

let svc: McpService;
let client: Client;

beforeAll(async () => {
  svc = await startMcpService();
  const { key } = await svc.issueKey('pioneer');
  client = await connect(svc.url, key);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

const origin = () => svc.url.replace(/\/mcp$/, '');

describe('search_variables and the Census-API-compatible endpoint', () => {
  it('a census-code result names its Census API form, with the datasets that published it', async () => {
    const r = await call(client, 'search_variables', { search: 'B07009_025E' });
    expect(r.isError).toBeFalsy();
    const line = textOf(r)
      .split('\n')
      .find((l) => l.startsWith('- B07009_025E'));
    // B07009 is published in both datasets: the form leaves the dataset to choose.
    expect(line).toMatch(/; Census API form: \/data\/\{vintage\}\/acs\/\{acs1\|acs5\}\?get=B07009_025E&for=…$/);
    const doc = await fetch(`${origin()}/data/2018/acs/acs1/variables/B07009_025E.json`);
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { group: string }).group).toBe('B07009');
  });

  it('every result with a census code carries the form, results without one do not', async () => {
    const r = await call(client, 'search_variables', { search: 'median household income', limit: 20 });
    const data = (r.structuredContent as { data: Array<{ api_name: string; census_code: string | null }> }).data;
    const lines = textOf(r).split('\n');
    expect(data.length).toBeGreaterThan(3);
    for (const v of data) {
      const line = lines.find((l) => l.startsWith(`- ${v.api_name}:`) || l.startsWith(`- ${v.api_name} (`));
      expect(line, v.api_name).toBeDefined();
      if (v.census_code) expect(line, v.api_name).toContain(`Census API form: /data/{vintage}/acs/{acs1|acs5}?get=${v.census_code}&for=…`);
      else expect(line, v.api_name).not.toContain('Census API form');
    }
    expect(textOf(r)).toMatch(/works unchanged in the Census Data API's own query language/);
  });
});
