// The process wrapper (src/server.ts) and the shutdown behaviour it relies on, on real sockets.
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/paths.js';
import { fixtureRoutes } from './fixture-routes.js';
import { emptyDataDir, makeApp } from './support.js';

function runServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/server.ts')], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: emptyDataDir(),
      DATABASE_PATH: path.join(emptyDataDir(), 'a.sqlite'),
      AUTO_BUILD_DATA: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitFor(pred: () => boolean, ms = 20_000) {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.on('data', (d) => (body += String(d)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('src/server.ts', () => {
  it('refuses to start on bad configuration, naming the variable', async () => {
    const s = runServer({ PORT: 'eighty', LOG_LEVEL: 'loud' });
    expect(await s.exited).toBe(2);
    expect(s.output()).toContain('PORT');
    expect(s.output()).toContain('LOG_LEVEL');
  }, 30_000);

  it('serves /health and exits 0 on SIGTERM', async () => {
    const s = runServer({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    await waitFor(() => /listening at http:\/\/127\.0\.0\.1:\d+/.test(s.output()));
    const port = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(s.output())![1];
    const res = await get(`http://127.0.0.1:${port}/health`);
    expect([200, 503]).toContain(res.status);
    expect(JSON.parse(res.body)).toHaveProperty('status');
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    expect(s.output()).toContain('shutdown complete');
  }, 30_000);

  it('logs asynchronously yet loses no line: every request logged once, with method, URL, status, time and id, before a SIGTERM exit', async () => {
    const s = runServer({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    await waitFor(() => /listening at http:\/\/127\.0\.0\.1:\d+/.test(s.output()));
    const port = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(s.output())![1];
    const n = 200;
    await Promise.all(Array.from({ length: n }, (_, i) => get(`http://127.0.0.1:${port}/no-such-route?i=${i}`)));
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    const lines = s
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map(
        (l) =>
          JSON.parse(l) as {
            msg: string;
            request_id?: string;
            req?: { method: string; url: string };
            res?: { statusCode: number };
            responseTime?: number;
          },
      );
    // One line per request (issue 13): no separate "incoming request" line.
    expect(lines.filter((l) => l.msg === 'incoming request')).toHaveLength(0);
    const done = lines.filter((l) => l.msg === 'request completed');
    expect(done).toHaveLength(n);
    expect(new Set(done.map((l) => l.request_id)).size).toBe(n);
    expect(new Set(done.map((l) => l.req!.url))).toEqual(new Set(Array.from({ length: n }, (_, i) => `/no-such-route?i=${i}`)));
    for (const l of done) {
      expect(l.req!.method).toBe('GET');
      expect(l.res!.statusCode).toBe(404);
      expect(l.responseTime).toEqual(expect.any(Number));
    }
    expect(lines.at(-1)!.msg).toBe('shutdown complete');
  }, 30_000);
});

describe('graceful close', () => {
  it('finishes in-flight requests and refuses new connections', async () => {
    const app = await makeApp({ extraRoutes: fixtureRoutes });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const inflight = get(`http://127.0.0.1:${port}/t/slow`);
    await new Promise((r) => setTimeout(r, 50));
    const closing = app.close();
    const res = await inflight;
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).data).toEqual({ ok: true });
    await closing;
    await expect(get(`http://127.0.0.1:${port}/t/public`)).rejects.toThrow();
  });
});
