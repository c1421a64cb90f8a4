// The fault suite's fixture: a real server process (src/server.ts, as `npm start` runs it) on its
// own copy of the test build and its own SQLite file, so a test can damage files, fill or lock
// the database and send signals without touching anything another test reads.
//
// The copy: observations are copied for real (the files tests truncate or delete); the other
// parts of the build (catalog, geographies, boundaries, manifest) are symlinks to the shared test
// build, which no fault test modifies, but for the files a test names in `real` (copied, in
// directories of symlinks, so it can damage them).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { testBuildDir } from '../support/build.js';
import { REPO_ROOT } from '../support/paths.js';

export interface DataCopy {
  dataDir: string;
  buildDir: string;
  /** Path of one partition's Parquet file in the copy. */
  partition(dataset: string, vintage: number, level: string): string;
  remove(): void;
}

/** `from` mirrored into `to`: the files in `real` (relative to `from`) copied, the rest symlinked. */
function mirror(from: string, to: string, real: readonly string[], rel = ''): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from)) {
    const r = rel ? `${rel}/${entry}` : entry;
    const src = path.join(from, entry);
    if (real.includes(r)) fs.copyFileSync(src, path.join(to, entry));
    else if (real.some((f) => f.startsWith(`${r}/`))) mirror(src, path.join(to, entry), real, r);
    else fs.symlinkSync(src, path.join(to, entry));
  }
}

export async function copyTestData(opts: { real?: readonly string[] } = {}): Promise<DataCopy> {
  const source = await testBuildDir();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cds-faults-'));
  const buildDir = path.join(dataDir, 'builds', path.basename(source));
  fs.mkdirSync(buildDir, { recursive: true });
  for (const entry of fs.readdirSync(source)) {
    if (entry === 'observations') fs.cpSync(path.join(source, entry), path.join(buildDir, entry), { recursive: true });
    else if (opts.real?.includes(entry)) fs.copyFileSync(path.join(source, entry), path.join(buildDir, entry));
    else if (opts.real?.some((f) => f.startsWith(`${entry}/`)))
      mirror(
        path.join(source, entry),
        path.join(buildDir, entry),
        opts.real.filter((f) => f.startsWith(`${entry}/`)).map((f) => f.slice(entry.length + 1)),
      );
    else fs.symlinkSync(path.join(source, entry), path.join(buildDir, entry));
  }
  fs.symlinkSync(path.join('builds', path.basename(source)), path.join(dataDir, 'current'));
  return {
    dataDir,
    buildDir,
    partition: (d, v, l) => path.join(buildDir, 'observations', `dataset=${d}`, `vintage=${v}`, `level=${l}`, 'data_0.parquet'),
    remove: () => fs.rmSync(dataDir, { recursive: true, force: true }),
  };
}

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

const BASE_ENV = () => ({
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '',
  NODE_ENV: 'test',
  AUTO_BUILD_DATA: 'false',
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'info',
});

export function spawnServer(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/server.ts')], {
    cwd: REPO_ROOT,
    env: { ...BASE_ENV(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, output: () => out, exited };
}

export async function startServer(env: Record<string, string>, timeoutMs = 60_000): Promise<ServerProcess> {
  const s = spawnServer({ ...env, LOG_LEVEL: 'info' }); // the 'listening at' line is at info
  const end = Date.now() + timeoutMs;
  let port: number | undefined;
  let done = false;
  void s.exited.then(() => (done = true));
  while (port === undefined) {
    const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(s.output());
    if (m) port = Number(m[1]);
    else if (done || Date.now() > end) throw new Error(`server did not start:\n${s.output().slice(-3000)}`);
    else await new Promise((r) => setTimeout(r, 50));
  }
  return {
    ...s,
    port,
    url: `http://127.0.0.1:${port}`,
    stop: async () => {
      if (s.child.exitCode === null && s.child.signalCode === null) {
        s.child.kill('SIGKILL');
        await s.exited;
      }
    },
  };
}

/** Create an account and key with the admin CLI (another process, as an operator would). */
export function adminKey(databasePath: string, plan: string, email = `${plan}-${Math.random().toString(36).slice(2)}@example.org`): string {
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'src/cli/admin.ts'), 'keys', 'create', '--email', email, '--plan', plan],
    {
      cwd: REPO_ROOT,
      env: { ...BASE_ENV(), DATABASE_PATH: databasePath, LOG_LEVEL: 'warn' },
      encoding: 'utf8',
      timeout: 60_000,
    },
  );
  if (r.status !== 0) throw new Error(`admin keys create failed: ${r.stderr}`);
  return r.stdout.trim();
}

export interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json<T = Record<string, unknown>>(): T;
}

export function get(url: string, headers: Record<string, string> = {}, opts: { agent?: http.Agent | false } = {}): Promise<Got> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers, agent: opts.agent ?? false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

export function tempDir(prefix = 'cds-faults-db-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * The slow part of the fault suite runs with `npm run test:faults` (FAULTS_FULL=1); `npm test`
 * runs the fast part (about a minute), one case per fault family.
 */
export const FULL = process.env.FAULTS_FULL === '1';
