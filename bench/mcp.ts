// MCP tool calls per second against the REST route they mirror, same query, same process, same run:
//   npx tsx bench/mcp.ts [--seconds 4] [--rounds 3] [--connections 8]
//
// One app (the real buildApp: auth, admission in SQLite, the data verbs over the test build)
// listens on 127.0.0.1. autocannon drives, interleaved round by round so load from other processes
// hits both alike:
//   REST  GET /v1/data?variables=B19013_001E&geo=state:06&dataset=acs1&vintage=2018  (X-API-Key)
//   MCP   POST /mcp  tools/call get_census_data with the same arguments        (Bearer)
// and the same for list_datasets vs GET /v1/datasets, where no data query hides MCP's own cost.
// Every response is checked once for the right value before timing. The MCP figure includes what
// MCP adds per call: a fresh SDK Server + transport (stateless), JSON-RPC framing, the text
// rendering, and the auth cache instead of a SQLite key lookup.
//
// Admission runs for real on both (one SQLite transaction per call), but the per-minute burst
// window would cap a benchmark at 100 requests/s on Enterprise; the bench's admit seam therefore
// gives every call its own minute. Monthly units, the request log and concurrency are unchanged.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command } from 'commander';
import pino from 'pino';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { loadConfig } from '../src/config.js';
import { buildApp } from '../src/http/app.js';
import { defaultSeams } from '../src/verbs/lifecycle/seams.js';
import { openAccountStores } from '../src/store/accounts/index.js';
import { openDataStores } from '../src/store/open.js';
import { adminIssueKey } from '../src/verbs/account-admin-issue-key.js';
import { admitRequest } from '../src/verbs/admit-request.js';
import { testBuildDir } from '../test/support/build.js';
import { loadRun, type LoadRun } from './lib/load-run.js';

const opts = new Command()
  .option('--seconds <n>', 'duration of each timed run', '4')
  .option('--rounds <n>', 'REST/MCP pairs, interleaved', '3')
  .option('--connections <n>', 'concurrent connections', '8')
  .parse()
  .opts<{ seconds: string; rounds: string; connections: string }>();

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-mcp-'));
const config = loadConfig({ NODE_ENV: 'production', LOG_LEVEL: 'silent', DATA_DIR: dir } as NodeJS.ProcessEnv, {
  DATABASE_PATH: path.join(dir, 'accounts.sqlite'),
});
const accounts = openAccountStores(config);
const data = await openDataStores(await testBuildDir(), { warn: () => {} });
const stores = { ...data.stores, ...accounts };

let minute = Date.parse('2026-01-01T00:00:00Z');
const seams = defaultSeams();
seams.admit = async ({ ctx, cost, ip, instance }) => {
  const own = new Date((minute += 60_000));
  const { headers, release } = (await admitRequest({ ctx: { ...ctx, now: () => own }, input: { cost, instance, ip } })).data;
  return { headers, release };
};
const app = await buildApp({ config, stores, seams, logger: pino({ level: 'silent' }) });
await app.listen({ host: '127.0.0.1', port: 0 });
const port = (app.server.address() as { port: number }).port;
const base = `http://127.0.0.1:${port}`;
const adminCtx = { requestId: 'bench', caller: null, stores, config, now: () => new Date(), log: pino({ level: 'silent' }), via: 'cli' };
const { key } = (await adminIssueKey({ ctx: adminCtx, input: { email: 'bench@example.com', plan: 'enterprise' } })).data;

const args = { variables: 'B19013_001E', geo: 'state:06', dataset: 'acs1', vintage: 2018 };
const restPath = `/v1/data?variables=${args.variables}&geo=${args.geo}&dataset=${args.dataset}&vintage=${args.vintage}`;
const mcpBody = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_census_data', arguments: args } });
const mcpHeaders = { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

// Correctness first: both answer California's $75,277 ± $317.
const rest = (await (await fetch(base + restPath, { headers: { 'x-api-key': key } })).json()) as {
  data: Array<{ estimate: number; moe_numeric: number }>;
};
if (rest.data?.[0]?.estimate !== 75277 || rest.data[0].moe_numeric !== 317)
  throw new Error(`REST answered ${JSON.stringify(rest).slice(0, 300)}`);
const mcp = (await (await fetch(`${base}/mcp`, { method: 'POST', headers: mcpHeaders, body: mcpBody })).json()) as {
  result?: { isError?: boolean; content: Array<{ text: string }> };
};
if (mcp.result?.isError || !mcp.result?.content[0]?.text.includes('$75,277 ± $317'))
  throw new Error(`MCP answered ${JSON.stringify(mcp).slice(0, 300)}`);

type Request = { method: 'GET' | 'POST'; path: string; headers: Record<string, string>; body?: string };
const toolCall = (name: string, a: object) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: a } });
// The pair the brief asks for, and a catalog pair where the data query does not dominate, so
// what MCP itself costs per call (server construction, JSON-RPC, rendering) shows.
const PAIRS: Array<{ label: string; rest: Request; mcp: Request }> = [
  {
    label: 'get_census_data vs GET /v1/data',
    rest: { method: 'GET', path: restPath, headers: { 'x-api-key': key } },
    mcp: { method: 'POST', path: '/mcp', headers: mcpHeaders, body: mcpBody },
  },
  {
    label: 'list_datasets vs GET /v1/datasets',
    rest: { method: 'GET', path: '/v1/datasets', headers: { 'x-api-key': key } },
    mcp: { method: 'POST', path: '/mcp', headers: mcpHeaders, body: toolCall('list_datasets', {}) },
  },
];

const run = (request: Request): Promise<LoadRun> =>
  loadRun({ url: base, connections: Number(opts.connections), duration: Number(opts.seconds), requests: [request] });

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const summary = (rs: LoadRun[]) => ({
  rps: mean(rs.map((r) => r.rps)),
  p50: mean(rs.map((r) => r.p50)),
  p99: mean(rs.map((r) => r.p99)),
  bad: rs.reduce((a, r) => a + r.non2xx + r.errors, 0),
});
console.log(
  `${opts.rounds} interleaved rounds × ${opts.seconds} s per target, ${opts.connections} connections, ${os.cpus().length} CPUs (shared with other work)`,
);
for (const pair of PAIRS) {
  // Warm-up (JIT, DuckDB caches), then interleaved rounds.
  await run(pair.rest);
  await run(pair.mcp);
  const results: Record<'rest' | 'mcp', LoadRun[]> = { rest: [], mcp: [] };
  for (let i = 0; i < Number(opts.rounds); i++) {
    results.rest.push(await run(pair.rest));
    results.mcp.push(await run(pair.mcp));
  }
  const R = summary(results.rest);
  const M = summary(results.mcp);
  console.log(`\n${pair.label}`);
  console.log(
    `  REST ${R.rps.toFixed(0).padStart(6)} req/s    p50 ${R.p50.toFixed(1)} ms  p99 ${R.p99.toFixed(1)} ms  non-2xx/errors ${R.bad}  rounds ${results.rest.map((r) => r.rps.toFixed(0)).join(', ')}`,
  );
  console.log(
    `  MCP  ${M.rps.toFixed(0).padStart(6)} calls/s  p50 ${M.p50.toFixed(1)} ms  p99 ${M.p99.toFixed(1)} ms  non-2xx/errors ${M.bad}  rounds ${results.mcp.map((r) => r.rps.toFixed(0)).join(', ')}`,
  );
  console.log(`  ratio MCP/REST: ${(M.rps / R.rps).toFixed(2)}`);
}

// The official SDK client, sequential: what one agent sees per call.
const client = new Client({ name: 'bench', version: '1' });
await client.connect(
  new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
);
let calls = 0;
const t0 = performance.now();
while (performance.now() - t0 < 2_000) {
  await client.callTool({ name: 'get_census_data', arguments: args });
  calls++;
}
const sdkRate = calls / ((performance.now() - t0) / 1000);
await client.close();
let seq = 0;
const t1 = performance.now();
while (performance.now() - t1 < 2_000) {
  await (await fetch(base + restPath, { headers: { 'x-api-key': key } })).arrayBuffer();
  seq++;
}
const fetchRate = seq / ((performance.now() - t1) / 1000);

console.log(
  `\nsequential, one client, get_census_data: SDK Client.callTool ${sdkRate.toFixed(0)} calls/s vs fetch /v1/data ${fetchRate.toFixed(0)} req/s; ratio ${(sdkRate / fetchRate).toFixed(2)}`,
);

await app.close();
data.close();
accounts.accounts.close();
