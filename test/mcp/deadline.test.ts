// Regression (MCP review): REQUEST_TIMEOUT_MS bounded REST requests but not MCP tool calls, whose
// response the SDK writes after fastify's handler timeout has stopped watching.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connect, startMcpService, textOf, type McpService } from './support.js';

let svc: McpService;
let client: Client;

beforeAll(async () => {
  // 1 ms: no DuckDB query answers that fast, so every data call that scans meets the deadline.
  svc = await startMcpService({ config: { REQUEST_TIMEOUT_MS: 1 } });
  client = await connect(svc.url, (await svc.issueKey('pro')).key);
}, 300_000);
afterAll(async () => {
  await client?.close();
  await svc?.close();
});

describe('tool call deadline', () => {
  it('answers a tool error, not a hung call or a transport failure, past REQUEST_TIMEOUT_MS', async () => {
    const r = await call(client, 'get_census_data', { variables: 'B01003_001E', geo: 'county:*', vintage: 2023 });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/did not complete within 1 ms/);
    expect((r.structuredContent?.problem as { status: number }).status).toBe(503);
  });
});
