// Versioned migrations of the SQLite accounts database: an older file is brought forward in
// place, and migration 4 leaves exactly one auth generation (the key cache's).
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../../src/store/accounts/accounts-repo.js';
import { openAccountsDb } from '../../../src/store/accounts/db.js';
import { authGeneration } from '../../../src/store/accounts/key-cache.js';
import { createKey, revokeKey } from '../../../src/store/accounts/keys-repo.js';
import { MIGRATIONS } from '../../../src/store/accounts/migrations.js';
import { tempDbPath } from './fixtures.js';

const names = (db: Database.Database, type: string) =>
  (db.prepare('SELECT name FROM sqlite_master WHERE type = ? ORDER BY name').all(type) as { name: string }[]).map((r) => r.name);

describe('accounts migrations (SQLite)', () => {
  it('upgrades a version-3 file that already had the key cache counter, keeping its value', () => {
    const file = tempDbPath();
    const old = new Database(file);
    for (const m of MIGRATIONS.slice(0, 3)) old.exec(m);
    old.pragma('user_version = 3');
    // What the key cache used to create on first use, with a generation already counted.
    old.exec(`CREATE TABLE auth_generation (id INTEGER PRIMARY KEY CHECK (id = 1), gen INTEGER NOT NULL);
      INSERT INTO auth_generation (id, gen) VALUES (1, 7);
      CREATE TRIGGER auth_gen_key_delete AFTER DELETE ON api_keys BEGIN UPDATE auth_generation SET gen = gen + 1 WHERE id = 1; END;`);
    old.close();

    const db = openAccountsDb(file);
    expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    expect(names(db, 'trigger').filter((n) => n.startsWith('auth_generation_'))).toEqual([]);
    expect(names(db, 'trigger').filter((n) => n.startsWith('auth_gen_'))).toHaveLength(9);
    const cols = (db.prepare('PRAGMA table_info(service_state)').all() as { name: string }[]).map((c) => c.name);
    expect(cols).toEqual(['id', 'health_probe_at']);
    expect(authGeneration(db)).toBe(7);
    // One revocation moves the one counter once (two mechanisms would have moved two).
    const a = createAccount(db, { email: 'm@example.org', plan: 'free', now: 1 });
    const k = createKey(db, a.id, 'k', 5, 1);
    const before = authGeneration(db);
    revokeKey(db, a.id, k.row.id, 2);
    expect(authGeneration(db)).toBe(before + 1);
    db.close();
  });

  it('a fresh file gets the counter from the migration, before any key lookup', () => {
    const db = openAccountsDb(tempDbPath());
    expect(authGeneration(db)).toBe(0);
    db.close();
  });
});
