// Server replicas as separate processes (`tsx src/server.ts`, what `npm start` runs) on loopback
// ports, and the admin CLI as a process: for the multi-replica tests, the admission benchmark and
// the cluster harness. Every replica is given its environment explicitly; nothing is inherited but
// PATH and HOME, so a test decides which accounts store (DATABASE_URL / DATABASE_PATH) it uses.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { REPO_ROOT } from './paths.js';

export interface Replica {
  base: string;
  port: number;
  child: ChildProcess;
  output(): string;
  /** SIGTERM and wait for the exit (graceful drain). */
  stop(): Promise<void>;
  /** SIGKILL: no drain, no cleanup, leases left behind. */
  kill9(): Promise<void>;
}

const TSX = ['--import', 'tsx'];

function baseEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...extra };
}

async function exit(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = once(child, 'exit');
  child.kill(signal);
  await done;
}

/**
 * One replica listening on a random loopback port, resolved once /health answers (200 or 503:
 * a replica whose accounts database is unreachable still starts). `env` must say where data and
 * accounts are (DATA_DIR, DATABASE_URL or DATABASE_PATH).
 */
export async function startReplica(env: Record<string, string>, opts: { timeoutMs?: number } = {}): Promise<Replica> {
  const child = spawn(process.execPath, [...TSX, path.join(REPO_ROOT, 'src/server.ts')], {
    cwd: REPO_ROOT,
    env: baseEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', AUTO_BUILD_DATA: 'false', NODE_ENV: 'production', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += String(d)));
  child.stderr!.on('data', (d) => (out += String(d)));
  const until = Date.now() + (opts.timeoutMs ?? 60_000);
  let port = 0;
  while (!port) {
    if (child.exitCode !== null) throw new Error(`replica exited with ${child.exitCode}:\n${out.slice(-2000)}`);
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error(`replica did not start in time:\n${out.slice(-2000)}`);
    }
    const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out) ?? /"port":(\d+)/.exec(out);
    if (m) port = Number(m[1]);
    else await new Promise((r) => setTimeout(r, 50));
  }
  const base = `http://127.0.0.1:${port}`;
  for (;;) {
    try {
      const r = await fetch(`${base}/health`);
      await r.arrayBuffer();
      break;
    } catch {
      if (Date.now() > until) throw new Error(`replica on ${port} never answered /health`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { base, port, child, output: () => out, stop: () => exit(child, 'SIGTERM'), kill9: () => exit(child, 'SIGKILL') };
}

export async function startReplicas(n: number, env: Record<string, string>): Promise<Replica[]> {
  return Promise.all(Array.from({ length: n }, () => startReplica(env)));
}

/** `npm run admin -- …` as a process; resolves with its exit code and outputs. */
export async function adminCli(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...TSX, path.join(REPO_ROOT, 'src/cli/admin.ts'), ...args], {
    cwd: REPO_ROOT,
    env: baseEnv({ LOG_LEVEL: 'warn', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += String(d)));
  child.stderr!.on('data', (d) => (stderr += String(d)));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code: code ?? -1, stdout, stderr };
}

/** Mint a key with the admin CLI (`keys create`), as an operator would. */
export async function mintKey(env: Record<string, string>, email: string, plan: string): Promise<string> {
  const r = await adminCli(['keys', 'create', '--email', email, '--plan', plan], env);
  if (r.code !== 0) throw new Error(`admin keys create failed (${r.code}): ${r.stderr}`);
  return r.stdout.trim();
}
