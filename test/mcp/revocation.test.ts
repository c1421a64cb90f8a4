// With the default configuration (MCP_AUTH_CACHE_TTL_MS=0) /mcp relies on the accounts key cache,
// which is revalidated on every request: a revocation or plan change applies to the next call,
// with no clock advance at all (issue 13: revocation reaches every process within 1 s).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { adminRevokeKey } from '../../src/verbs/account-admin-revoke-key.js';
import { adminSetPlan } from '../../src/verbs/account-admin-set-plan.js';
import { call, connect, startMcpService, type McpService } from './support.js';

let svc: McpService;
const clients: Client[] = [];

beforeAll(async () => {
  svc = await startMcpService();
}, 300_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {});
  await svc?.close();
});

describe('MCP with the default configuration', () => {
  it('has no MCP-only cache: a revoked key is refused on the very next call', async () => {
    expect(svc.config.MCP_AUTH_CACHE_TTL_MS).toBe(0);
    const { key, keyId } = await svc.issueKey('pro');
    const c = await connect(svc.url, key);
    clients.push(c);
    expect((await call(c, 'list_datasets')).isError).toBeFalsy();
    await adminRevokeKey({ ctx: svc.adminCtx(), input: { key: keyId } });
    await expect(call(c, 'list_datasets')).rejects.toThrow(/401/);
  });

  it('a downgrade applies on the next call', async () => {
    const { key, accountId } = await svc.issueKey('pro');
    const c = await connect(svc.url, key);
    clients.push(c);
    expect((await call(c, 'list_topics')).isError).toBeFalsy();
    await adminSetPlan({ ctx: svc.adminCtx(), input: { account: accountId, plan: 'free' } });
    await expect(call(c, 'list_topics')).rejects.toThrow(/403/);
  });
});
