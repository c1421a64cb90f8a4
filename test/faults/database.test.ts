// A failing accounts database (issue 12), on a real server process: the file deleted under it, an
// unwritable WAL index (`chattr +i` on -shm), a read-only database, a full disk. Each answers 503
// dependency-unavailable (never 500, never SIGBUS), /health says `degraded` with the reason, and
// both recover by themselves when the fault goes. Needs root's chattr and mount (tmpfs); a test
// whose tool is not permitted here is skipped, not passed.
import Database from 'better-sqlite3';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKey, copyTestData, FULL, get, startServer, tempDir, type DataCopy, type ServerProcess } from './support.js';

const can = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
function chattrWorks(): boolean {
  const f = path.join(tempDir(), 'probe');
  fs.writeFileSync(f, 'x');
  const ok = can('chattr', ['+i', f]);
  if (ok) can('chattr', ['-i', f]);
  return ok;
}
const CHATTR = chattrWorks();

let data: DataCopy;
beforeAll(async () => {
  data = await copyTestData();
}, 120_000);
afterAll(() => data?.remove());

async function serverOn(dbPath: string): Promise<{ server: ServerProcess; key: string }> {
  const key = adminKey(dbPath, 'pro');
  const server = await startServer({ DATA_DIR: data.dataDir, DATABASE_PATH: dbPath });
  return { server, key };
}

const topics = (s: ServerProcess, key: string) => get(`${s.url}/v1/topics`, { 'X-API-Key': key });

describe('database file deleted under a running server', () => {
  it('503 from the next request on, health names it, nothing is charged into the deleted file (was: 300 of 300 answered 200 and charged into it, health "ok")', async () => {
    const dir = tempDir();
    const db = path.join(dir, 'accounts.sqlite');
    const { server, key } = await serverOn(db);
    try {
      for (let i = 0; i < 3; i++) expect((await topics(server, key)).status).toBe(200);
      // Hard links keep the inodes reachable, so what the server writes after the deletion can be
      // counted afterwards. The path names are what is deleted, as `rm` would.
      const kept = path.join(dir, 'kept.sqlite');
      fs.linkSync(db, kept);
      fs.linkSync(`${db}-wal`, `${kept}-wal`);
      const logged = (file: string) => {
        const c = new Database(file, { readonly: true });
        try {
          return (c.prepare('SELECT count(*) AS n FROM request_log').get() as { n: number }).n;
        } finally {
          c.close();
        }
      };
      const before = logged(db);
      expect(before).toBe(3);
      for (const f of [db, `${db}-wal`, `${db}-shm`]) fs.rmSync(f);

      const answers = await Promise.all(Array.from({ length: 20 }, () => topics(server, key)));
      for (const r of answers) {
        expect(r.status).toBe(503);
        expect(r.json()).toMatchObject({ type: expect.stringMatching(/dependency-unavailable$/) });
        expect(r.body).not.toContain(dir);
      }
      const h = await get(`${server.url}/health`);
      expect(h.status).toBe(503);
      expect(h.json()).toMatchObject({ status: 'degraded', database: 'unavailable', database_error: 'SQLITE_READONLY_DBMOVED' });
      // A key the admin CLI writes into the new file at the path is not silently refused as
      // unknown (401): the server says its database is unavailable until it is restarted.
      const newKey = adminKey(db, 'pro');
      expect((await topics(server, newKey)).status).toBe(503);
      expect((await get(`${server.url}/v1/topics`)).status).toBe(401); // no key: refused before the database

      await server.stop();
      expect(logged(kept)).toBe(before);
    } finally {
      await server.stop();
    }
  }, 90_000);
});

describe.skipIf(!CHATTR)('unwritable WAL index (chattr +i on -shm)', () => {
  it('503 on the next request instead of SIGBUS killing the process; health degraded; recovers when writable again (was: process killed by SIGBUS, nothing logged)', async () => {
    const db = path.join(tempDir(), 'accounts.sqlite');
    const { server, key } = await serverOn(db);
    try {
      expect((await topics(server, key)).status).toBe(200);
      const shm = `${db}-shm`;
      expect(fs.existsSync(shm)).toBe(true);
      execFileSync('chattr', ['+i', shm]);
      try {
        for (let i = 0; i < 5; i++) {
          const r = await topics(server, key);
          expect(r.status).toBe(503);
          expect(r.json()).toMatchObject({ type: expect.stringMatching(/dependency-unavailable$/) });
          expect(r.body).not.toContain(db);
        }
        const h = await get(`${server.url}/health`);
        expect(h.status).toBe(503);
        expect(h.json()).toMatchObject({ status: 'degraded', database: 'unavailable', database_error: 'SQLITE_IOERR_SHMMAP' });
        expect(server.child.exitCode).toBeNull();
        expect(server.child.signalCode).toBeNull();
      } finally {
        execFileSync('chattr', ['-i', shm]);
      }
      expect((await topics(server, key)).status).toBe(200);
      expect((await get(`${server.url}/health`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 90_000);
});

describe.skipIf(!CHATTR || !FULL)('read-only database (chattr +i on the file and its WAL)', () => {
  it('metered requests answer 503, not 500; health degraded; recovers (was: 500 on every metered request, health "ok")', async () => {
    const db = path.join(tempDir(), 'accounts.sqlite');
    const { server, key } = await serverOn(db);
    try {
      expect((await topics(server, key)).status).toBe(200);
      const files = [db, `${db}-wal`].filter((f) => fs.existsSync(f));
      for (const f of files) execFileSync('chattr', ['+i', f]);
      try {
        const r = await topics(server, key);
        expect(r.status).toBe(503);
        const h = await get(`${server.url}/health`);
        expect(h.status).toBe(503);
        expect(h.json()).toMatchObject({ database: 'unavailable', database_error: expect.stringMatching(/^SQLITE_/) });
      } finally {
        for (const f of files) execFileSync('chattr', ['-i', f]);
      }
      await new Promise((r) => setTimeout(r, 1_100)); // the health probe runs at most once a second
      expect((await topics(server, key)).status).toBe(200);
      expect((await get(`${server.url}/health`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 90_000);
});

function tmpfs(sizeKb: number): string | null {
  const dir = tempDir('cds-faults-tmpfs-');
  return can('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k`, 'tmpfs', dir]) ? dir : null;
}
const TMPFS = (() => {
  const d = tmpfs(64);
  if (d) can('umount', [d]);
  return d !== null;
})();

describe.skipIf(!TMPFS || !FULL)('full disk (database on a small tmpfs)', () => {
  it('503 once writes fail with SQLITE_FULL; health degraded; recovers once space is freed (was: 500, health "ok")', async () => {
    const dir = tmpfs(1024)!;
    const db = path.join(dir, 'accounts.sqlite');
    const { server, key } = await serverOn(db);
    const filler = path.join(dir, 'filler');
    try {
      expect((await topics(server, key)).status).toBe(200);
      // Fill the rest of the file system.
      try {
        fs.writeFileSync(filler, Buffer.alloc(4 * 1024 * 1024));
      } catch {
        /* ENOSPC: it wrote what fitted */
      }
      let failed: Awaited<ReturnType<typeof topics>> | undefined;
      for (let i = 0; i < 200 && !failed; i++) {
        const r = await topics(server, key);
        expect(r.status === 200 || r.status === 503).toBe(true);
        if (r.status === 503) failed = r;
      }
      expect(failed?.json()).toMatchObject({ type: expect.stringMatching(/dependency-unavailable$/) });
      await new Promise((r) => setTimeout(r, 1_100));
      const h = await get(`${server.url}/health`);
      expect(h.status).toBe(503);
      expect(h.json()).toMatchObject({ database: 'unavailable' });
      fs.rmSync(filler);
      await new Promise((r) => setTimeout(r, 1_100));
      expect((await get(`${server.url}/health`)).status).toBe(200);
      expect((await topics(server, key)).status).toBe(200);
    } finally {
      await server.stop();
      can('umount', [dir]);
    }
  }, 90_000);
});
