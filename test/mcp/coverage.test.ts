// get_coverage through the official MCP SDK client: the same rows as GET /v1/coverage, a text an
// agent can read, and a place that is not one refused as a tool error, not a crash.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HEADLINE_VARIABLES } from '../../web/profile/layout.js';
import { call, connect, startMcpService, textOf, type McpService } from './support.js';

let svc: McpService;
let client: Client;
let key: string;

beforeAll(async () => {
  svc = await startMcpService();
  // Pioneer: the first plan with MCP access.
  key = (await svc.issueKey('pioneer')).key;
  client = await connect(svc.url, key);
}, 120_000);
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

describe('get_coverage', () => {
  it('gives the rows GET /v1/coverage gives, and says them as text', async () => {
    for (const geo of ['state:48', 'county:48453']) {
      const rest = await svc.app.inject({
        url: `/v1/coverage?variables=${HEADLINE_VARIABLES.join(',')}&geo=${encodeURIComponent(geo)}`,
        headers: { 'x-api-key': key },
      });
      expect(rest.statusCode, rest.body.slice(0, 300)).toBe(200);
      const viaRest = rest.json() as {
        data: { dataset: string; vintage: number; with_values: number; variables: number }[];
        meta: Record<string, unknown>;
      };
      const r = await call(client, 'get_coverage', { variables: [...HEADLINE_VARIABLES], geo });
      expect(r.isError ?? false).toBe(false);
      const sc = r.structuredContent as { data: unknown; meta: Record<string, unknown> };
      expect(sc.data).toEqual(viaRest.data);
      expect(sc.meta).toMatchObject({ geo_key: geo, name: viaRest.meta.name, counted: viaRest.meta.counted });
      const text = textOf(r);
      expect(text).toContain(`(${geo})`);
      const best = viaRest.data.reduce((a, b) => (b.with_values > a.with_values ? b : a));
      expect(text).toContain(`${best.vintage}: ${best.with_values} of ${HEADLINE_VARIABLES.length} variables with values`);
    }
  });

  it('refuses a wildcard as a tool error naming the one place it needs', async () => {
    const r = await call(client, 'get_coverage', { variables: 'B01003_001E', geo: 'county:48*' });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/one place/i);
    expect((r.structuredContent as { problem: { status: number } }).problem.status).toBe(400);
  });
});
