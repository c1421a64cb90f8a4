// The accounts database: one SQLite file (better-sqlite3), WAL so readers never block the single
// writer, busy_timeout so several processes sharing the file queue instead of failing.
import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { MIGRATIONS } from './migrations.js';

export type Db = Database.Database;

export function openAccountsDb(file: string): Db {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 10000');
  db.pragma('foreign_keys = ON');
  // NORMAL in WAL mode is durable against application crashes; only an OS crash can lose the last
  // commits, which for counters and logs is an acceptable trade for write latency.
  db.pragma('synchronous = NORMAL');
  migrate(db);
  return db;
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
  let m = cache.get(db);
  if (!m) cache.set(db, (m = new Map()));
  let s = m.get(sql);
  if (!s) m.set(sql, (s = db.prepare(sql)));
  return s;
}
