// The accounts database: one SQLite file (better-sqlite3), WAL so readers never block the single
// writer, busy_timeout so several processes sharing the file queue instead of failing.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { ensureParentDirectory, PathSettingError } from '../fs-check.js';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

/**
 * Thrown instead of touching a database whose WAL index (`-shm`, which SQLite maps into memory)
 * cannot be written: a write to that mapping would kill the process with SIGBUS (reproduced with
 * `chattr +i` on the file). The code is SQLite-shaped so transports treat it like SQLite's own
 * I/O errors: 503 dependency-unavailable.
 */
export class ShmUnwritableError extends Error {
  readonly code = 'SQLITE_IOERR_SHMMAP';
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`the WAL index ${file} is not writable (${reason}); the accounts database is not used until it is`);
  }
}

/**
 * Thrown once the database file (or its WAL or WAL index) at DATABASE_PATH is no longer the one
 * this connection opened: deleted, or replaced by another file. SQLite would go on reading and
 * writing the unlinked inode, so every charge would land in a file nobody will ever read, while
 * the admin CLI writes keys into the new one the server never sees. The code is SQLite's own name
 * for this state, so transports answer 503 dependency-unavailable and /health names it. Only a
 * restart opens the file that is now at the path (which may be empty, or a restored backup).
 */
export class DatabaseFileLostError extends Error {
  readonly code = 'SQLITE_READONLY_DBMOVED';
  constructor(
    readonly file: string,
    readonly reason: 'deleted' | 'replaced',
  ) {
    super(`the accounts database file ${file} was ${reason} while open; restart the server to open the one now at the path`);
  }
}

interface FileIdentity {
  file: string;
  dev: number;
  ino: number;
}

interface Guarded {
  main: string;
  shm: string;
  /** The database and its WAL as opened: device and inode of each. */
  identities: FileIdentity[];
  /** Whether the WAL index existed once the database was open (its deletion is then a loss). */
  shmOpened: boolean;
}

const guardedFiles = new WeakMap<Db, Guarded>();

/** Connections whose files passed the checks in the current synchronous run of JavaScript. */
const checkedThisRun = new WeakSet<Db>();

/**
 * The guard every statement goes through (stmt() and every transaction call it). It refuses the
 * connection while either check fails:
 *   * the files at the path are still the ones opened (device and inode of the database and its
 *     WAL, one stat(2) each; the WAL index still exists, which the access(2) below tells), else
 *     DatabaseFileLostError, for good;
 *   * the WAL index (`-shm`) is writable (one access(2)): a write to a mapped page of an
 *     unwritable -shm is a SIGBUS, which no handler can turn into an error, so the connection is
 *     simply not used while it fails; it is usable again as soon as the file is (the mapping
 *     itself is fine), and never closed meanwhile (closing checkpoints, which writes).
 *
 * The checks run once per synchronous run of JavaScript: a passed check holds until the microtask
 * queued with it runs, i.e. until this code yields. A request's statements (the key lookup, a
 * batch of charges: up to eight statements and transactions) therefore pay for the three system
 * calls (about 10 µs on the loaded 2-core test machine) once, not once each. The files can change between the check and the write either way (another
 * process deletes or runs `chattr` when it likes); what matters is that no request starts writing
 * on a check older than the current run, so the request after a fault still gets its 503, and
 * nothing is charged into a deleted file after the run that noticed it.
 */
export function assertUsable(db: Db, fresh = false): void {
  const g = guardedFiles.get(db);
  // A closed connection has no files to guard (closing removed the WAL files): better-sqlite3
  // refuses its statements itself.
  if (!g || !db.open || (!fresh && checkedThisRun.has(db))) return;
  for (const id of g.identities) {
    const now = fs.statSync(id.file, { throwIfNoEntry: false });
    if (!now) throw new DatabaseFileLostError(id.file, 'deleted');
    if (now.ino !== id.ino || now.dev !== id.dev) throw new DatabaseFileLostError(id.file, 'replaced');
  }
  try {
    fs.accessSync(g.shm, fs.constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') throw new ShmUnwritableError(g.shm, code ?? 'error');
    if (g.shmOpened) throw new DatabaseFileLostError(g.shm, 'deleted');
    return; // never there (not in WAL mode): nothing mapped to fault on
  }
  checkedThisRun.add(db);
  queueMicrotask(() => checkedThisRun.delete(db));
}

/** Device and inode of each file that exists now (the WAL files exist once WAL mode is on). */
function identitiesOf(files: string[]): FileIdentity[] {
  return files.flatMap((file) => {
    const st = fs.statSync(file, { throwIfNoEntry: false });
    return st ? [{ file, dev: st.dev, ino: st.ino }] : [];
  });
}

/** Whether close() is safe (it checkpoints the WAL through the mapping). */
export function closeAccountsDb(db: Db): void {
  try {
    assertUsable(db, true);
  } catch {
    return; // leave it to process exit, which unmaps without writing
  }
  db.close();
}

/** Thrown when DATABASE_PATH cannot hold a database; the message names the setting. */
export class DatabasePathError extends PathSettingError {}

export function openAccountsDb(file: string): Db {
  if (file !== ':memory:') {
    try {
      ensureParentDirectory(file, 'DATABASE_PATH');
    } catch (e) {
      throw new DatabasePathError((e as Error).message);
    }
    const shm = `${path.resolve(file)}-shm`;
    if (fs.existsSync(shm)) {
      try {
        fs.accessSync(shm, fs.constants.W_OK);
      } catch (e) {
        throw new DatabasePathError(
          `DATABASE_PATH: ${shm} is not writable (${(e as NodeJS.ErrnoException).code}); SQLite cannot use ${file} safely`,
        );
      }
    }
  }
  let db: Db | undefined;
  try {
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    // The -shm file is mapped into memory; the main file never is (mmap_size stays 0 explicitly).
    db.pragma('mmap_size = 0');
    if (file !== ':memory:') {
      const main = path.resolve(file);
      guardedFiles.set(db, { main, shm: `${main}-shm`, identities: identitiesOf([main]), shmOpened: false });
      guardTransactions(db);
    }
    db.pragma('busy_timeout = 10000');
    db.pragma('foreign_keys = ON');
    // NORMAL in WAL mode is durable against application crashes; only an OS crash can lose the last
    // commits, which for counters and logs is an acceptable trade for write latency.
    db.pragma('synchronous = NORMAL');
    migrate(db);
    const g = guardedFiles.get(db);
    // The WAL and its index exist now (the migration check read through them): they are recorded
    // here, once they are the files this connection uses.
    if (g) {
      g.identities = identitiesOf([g.main, `${g.main}-wal`]);
      g.shmOpened = fs.existsSync(g.shm);
    }
    return db;
  } catch (e) {
    if (db?.open) closeAccountsDb(db);
    throw new DatabasePathError(`DATABASE_PATH: cannot use ${file}: ${(e as Error).message}`);
  }
}

/** BEGIN touches the WAL index too: every transaction variant checks it first, like stmt(). */
function guardTransactions(db: Db): void {
  const original = db.transaction.bind(db);
  type Tx = ReturnType<Db['transaction']>;
  const guarded = <F extends (...args: never[]) => unknown>(f: F): F =>
    ((...args: Parameters<F>) => {
      assertUsable(db);
      return f(...args);
    }) as F;
  (db as { transaction: Db['transaction'] }).transaction = ((fn: Parameters<Db['transaction']>[0]) => {
    const tx = original(fn);
    return Object.assign(guarded(tx), {
      default: guarded(tx.default),
      deferred: guarded(tx.deferred),
      immediate: guarded(tx.immediate),
      exclusive: guarded(tx.exclusive),
    }) as Tx;
  }) as Db['transaction'];
}

/** Apply pending migrations inside one IMMEDIATE transaction so concurrent openers cannot race. */
export function migrate(db: Db): void {
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    for (let v = current; v < MIGRATIONS.length; v++) {
      db.exec(MIGRATIONS[v]!);
      db.pragma(`user_version = ${v + 1}`);
    }
  }).immediate();
}

const cache = new WeakMap<Db, Map<string, Database.Statement>>();

/** Prepared statements are compiled once per connection; preparing per call costs ~10 µs. */
export function stmt(db: Db, sql: string): Database.Statement {
  assertUsable(db);
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}
