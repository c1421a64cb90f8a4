// Start-up (issue 34 §3, target 3 s on a national build): the server's module graph does not load
// what only some servers use. oidc-provider (with koa, ~270 modules) runs in a development server
// only, the Stripe SDK (~220 modules) only with billing configured, and the MCP SDK (with ajv) on
// the first POST /mcp; each is loaded on first use (src/http/dashboard/dev-idp.ts,
// src/store/accounts/stripe-sdk.ts, src/mcp/server.ts).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/** Every module URL a fresh process loads when it imports the server's entry module (without starting it). */
function modulesLoadedByServer(): string[] {
  const script = `
    import module from 'node:module';
    const urls = [];
    module.registerHooks({ load(url, context, next) { urls.push(url); return next(url, context); } });
    await import('./src/server.ts');
    process.stdout.write(JSON.stringify(urls));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: process.cwd(),
    env: { ...process.env, NODE_ENV: 'production' },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out) as string[];
}

describe('the server module graph', () => {
  it('loads neither oidc-provider, the Stripe SDK nor the MCP SDK at start', { timeout: 120_000 }, () => {
    const urls = modulesLoadedByServer();
    // The probe works: the server's own modules and its HTTP framework are in the list.
    expect(urls.some((u) => u.includes('/src/http/app.ts'))).toBe(true);
    expect(urls.some((u) => u.includes('/node_modules/fastify/'))).toBe(true);
    expect(urls.filter((u) => u.includes('/node_modules/oidc-provider/'))).toEqual([]);
    expect(urls.filter((u) => u.includes('/node_modules/stripe/'))).toEqual([]);
    expect(urls.filter((u) => u.includes('/node_modules/@modelcontextprotocol/sdk/') || u.includes('/node_modules/ajv/'))).toEqual([]);
  });
});
