// The Dockerfile, built and run under podman (`npm run test:container`; minutes, so not part of
// `npm test`). The image runs as a non-root user on a read-only root filesystem with the data volume
// and the Census source tree mounted: it builds its data on first start (in a child process), answers
// a data request with a key made by the admin CLI inside the container, with the number the Bureau
// published, and exits 0 on SIGTERM; then again from the built volume (warm start).
// No registry can be pulled here: the base image is the local stand-in that
// ../shared/tools/container-base.sh builds from the pinned Node (node_modules/node).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readApiFile } from '../support/census-api-file.js';
import { REPO_ROOT, SHARED_CENSUS } from '../support/paths.js';

const BASE = 'localhost/node:22-bookworm-slim';
const IMAGE = 'localhost/census-data-service:container-test';
const RUN_ID = `cds-test-${process.pid}-${Date.now().toString(36)}`;
const VOLUME = `${RUN_ID}-data`;
// A request that reads stored numbers: Idaho's median household income, ACS 1-year 2012.
const DATA_PATH = '/v1/data?variables=B19013_001E&geo=state:16&dataset=acs1&vintage=2012';
const published = Number(readApiFile(2012, 'acs1', 'state', 'B19013').find((r) => r.state === '16')!.B19013_001E);

function sh(cmd: string, args: string[], timeoutMs = 900_000): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')} exited ${r.status ?? r.signal}:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-4000)}`);
  return r.stdout.trim();
}
// crun refuses this machine's hybrid cgroups; runc works (container-base.sh's header).
const podman = (...args: string[]) => sh('podman', ['--runtime', 'runc', ...args]);
// podman's default limits exceed what this sandbox allows (container-base.sh's header).
const LIMITS = ['--ulimit', 'nofile=4096:4096', '--ulimit', 'nproc=4096:4096'];

/** The pinned Node's prefix (bin/node and include/node), as the `node` devDependency installed it. */
function pinnedNodePrefix(): string {
  const nested = path.join(REPO_ROOT, 'node_modules/node/node_modules');
  const found = fs.readdirSync(nested).find((d) => fs.existsSync(path.join(nested, d, 'include/node/node_version.h')));
  if (!found) throw new Error(`no Node headers under ${nested} (npm rebuild node)`);
  return path.join(nested, found);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

async function waitFor200(url: string, headers: Record<string, string>, limitMs: number, running: () => boolean): Promise<Response> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const r = await fetch(url, { headers }).catch(() => undefined);
    if (r?.status === 200) return r;
    if (!running()) throw new Error(`the container stopped before ${url} answered 200`);
    if (Date.now() > deadline) throw new Error(`${url}: no 200 within ${limitMs} ms (last: ${r?.status ?? 'no answer'})`);
    await new Promise((res) => setTimeout(res, 500));
  }
}

const memory = (pid: string) =>
  Object.fromEntries(
    fs
      .readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .filter((l) => /^(VmRSS|VmHWM):/.test(l))
      .map((l) => [l.split(':')[0]!, Number(/(\d+) kB/.exec(l)![1]) * 1024]),
  ) as { VmRSS: number; VmHWM: number };

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

interface Run {
  name: string;
  firstAnswerMs: number;
  rss: { VmRSS: number; VmHWM: number };
}

/** Start the image on the volume, as a non-root user on a read-only root filesystem; wait for a data answer. */
async function startAndAnswer(name: string, limitMs: number): Promise<Run & { key: string; body: { data: Array<{ estimate: number }> } }> {
  const port = await freePort();
  const started = Date.now();
  podman(
    'run', '-d', '--name', name, '--network=host',
    ...LIMITS,
    '--user', '1000:1000', '--read-only', '--tmpfs', '/tmp',
    '-e', `PORT=${port}`, '-e', 'HOST=127.0.0.1',
    '-v', `${SHARED_CENSUS}:/census:ro`, '-v', `${VOLUME}:/app/data`,
    IMAGE,
  ); // prettier-ignore
  const running = () => podman('inspect', '-f', '{{.State.Running}}', name) === 'true';
  const base = `http://127.0.0.1:${port}`;
  await waitFor200(`${base}/health`, {}, limitMs, running);
  // An operator's key, made inside the container by the admin CLI (compiled, like the server).
  const key = podman('exec', name, 'node', 'src/cli/admin.js', 'keys', 'create', '--email', `${name}@example.org`, '--plan', 'free');
  const r = await waitFor200(`${base}${DATA_PATH}`, { 'x-api-key': key }, 60_000, running);
  const firstAnswerMs = Date.now() - started;
  const body = (await r.json()) as { data: Array<{ estimate: number }> };
  const rss = memory(podman('inspect', '-f', '{{.State.Pid}}', name));
  return { name, firstAnswerMs, rss, key, body };
}

/** SIGTERM to the server (PID 1) and its exit code. */
function stop(name: string): { code: string; ms: number } {
  const t = Date.now();
  podman('kill', '--signal', 'TERM', name);
  const code = podman('wait', name);
  return { code, ms: Date.now() - t };
}

describe('the container image', () => {
  beforeAll(() => {
    if (spawnSync('podman', ['image', 'exists', BASE]).status !== 0)
      sh(path.resolve(SHARED_CENSUS, '../tools/container-base.sh'), [BASE, pinnedNodePrefix()]);
    const t = Date.now();
    // Docker's format keeps the HEALTHCHECK (OCI has no field for it).
    podman('build', '--network=host', '--format', 'docker', '-t', IMAGE, REPO_ROOT);
    const size = Number(podman('image', 'inspect', '-f', '{{.Size}}', IMAGE));
    process.stdout.write(`image ${IMAGE}: built in ${((Date.now() - t) / 1000).toFixed(0)} s, ${mb(size)}\n`);
  }, 1_200_000);

  afterAll(() => {
    for (const args of [
      ['rm', '-f', `${RUN_ID}-cold`, `${RUN_ID}-warm`],
      ['volume', 'rm', '-f', VOLUME],
    ])
      spawnSync('podman', ['--runtime', 'runc', ...args]);
  }, 60_000);

  it('runs compiled JavaScript as a non-root user on a read-only root filesystem', () => {
    const files = podman(
      'run',
      '--rm',
      ...LIMITS,
      '--read-only',
      '--entrypoint',
      'sh',
      IMAGE,
      '-c',
      'id -u; ls src/server.* etl/cli.*; touch /app/x 2>&1 || true',
    );
    const [uid, ...rest] = files.split('\n');
    expect(uid).toBe('1000');
    expect(rest).toContain('src/server.js');
    expect(rest).toContain('etl/cli.js');
    expect(files).not.toMatch(/\.ts$/m);
    expect(files).toMatch(/Read-only file system/);
  }, 120_000);

  it('builds its data on first start, answers the published number with an admin-made key, and exits 0 on SIGTERM; then starts warm', async () => {
    podman('volume', 'create', VOLUME);
    const cold = await startAndAnswer(`${RUN_ID}-cold`, 900_000);
    expect(cold.body.data[0]!.estimate).toBe(published);
    const coldStop = stop(cold.name);
    expect(coldStop.code).toBe('0');

    const warm = await startAndAnswer(`${RUN_ID}-warm`, 120_000);
    expect(warm.body.data[0]!.estimate).toBe(published);
    const warmStop = stop(warm.name);
    expect(warmStop.code).toBe('0');

    for (const [label, run, s] of [
      ['cold (data built on first start)', cold, coldStop],
      ['warm', warm, warmStop],
    ] as const)
      process.stdout.write(
        `${label}: first answer ${(run.firstAnswerMs / 1000).toFixed(1)} s; server RSS ${mb(run.rss.VmRSS)}, peak ${mb(run.rss.VmHWM)}; SIGTERM to exit ${s.ms} ms\n`,
      );
    // The ETL ran in a child process: its peak (about 1.9 GB when it ran in the server) is not the
    // server's. Serving one request stays well under a gigabyte.
    expect(cold.rss.VmHWM).toBeLessThan(1e9);
  }, 1_500_000);
});
