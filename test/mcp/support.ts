// A real service for MCP tests: the fastify app listening on 127.0.0.1 with the data stores of the
// test build, a real SQLite accounts store with keys issued per plan by the admin verb, the
// production auth/admission seams and a clock the test can move. Clients are the official SDK
// Client over StreamableHTTPClientTransport.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { FastifyInstance } from 'fastify';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { PlanId } from '../../src/domain/plans.js';
import { buildApp } from '../../src/http/app.js';
import { openAccountStores, type AccountStores } from '../../src/store/accounts/index.js';
import { openDataStores } from '../../src/store/open.js';
import { adminIssueKey } from '../../src/verbs/account-admin-issue-key.js';
import type { Stores, VerbContext } from '../../src/context/verb-context.js';
import { testBuildDir } from '../support/build.js';

export interface McpService {
  app: FastifyInstance;
  url: string;
  port: number;
  config: Config;
  accounts: AccountStores;
  clock: { t: number; advance(ms: number): void };
  /** A VerbContext for calling admin verbs (issue/revoke keys, set plans) on the same database. */
  adminCtx(): VerbContext;
  issueKey(plan: PlanId, email?: string): Promise<{ key: string; accountId: string; keyId: string }>;
  close(): Promise<void>;
}

let seq = 0;

export async function startMcpService(opts: { config?: Partial<Config>; data?: boolean } = {}): Promise<McpService> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-mcp-'));
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dir } as NodeJS.ProcessEnv, {
    DATABASE_PATH: path.join(dir, 'accounts.sqlite'),
    ...opts.config,
  });
  const accounts = openAccountStores(config);
  const data =
    opts.data === false ? { stores: {} as Stores, close: () => {} } : await openDataStores(await testBuildDir(), { warn: () => {} });
  const clock = {
    t: Date.parse('2026-03-10T12:00:00.000Z'),
    advance(ms: number) {
      this.t += ms;
    },
  };
  const now = () => new Date(clock.t);
  const app = await buildApp({ config, stores: { ...data.stores, ...accounts }, now, logger: pino({ level: 'silent' }) });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const adminCtx = (): VerbContext => ({
    requestId: `admin-${++seq}`,
    caller: null,
    stores: { ...data.stores, ...accounts },
    config,
    now,
    log: pino({ level: 'silent' }),
    via: 'cli',
  });
  return {
    app,
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    config,
    accounts,
    clock,
    adminCtx,
    async issueKey(plan, email) {
      const r = await adminIssueKey({ ctx: adminCtx(), input: { email: email ?? `${plan}-${++seq}@example.com`, plan } });
      return { key: r.data.key, accountId: r.data.account_id, keyId: r.data.id };
    },
    async close() {
      await app.close();
      data.close();
      accounts.accounts.close();
    },
  };
}

export async function connect(url: string, key: string | null, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'census-mcp-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers } },
  });
  await client.connect(transport);
  return client;
}

export function textOf(r: CallToolResult | { content?: unknown }): string {
  const content = (r.content ?? []) as Array<{ type: string; text?: string }>;
  return content
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n');
}

export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { structuredContent?: Record<string, unknown> }> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult & { structuredContent?: Record<string, unknown> };
}

/** A raw JSON-RPC POST, for what the SDK client cannot send (foreign Origin, no Accept…). */
export async function rawPost(url: string, headers: Record<string, string>, body: unknown = INITIALIZE): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
