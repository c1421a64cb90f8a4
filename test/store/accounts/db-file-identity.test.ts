// The SQLite accounts store refuses to go on using a database file that is no longer the one at
// DATABASE_PATH (deleted, or another file moved over it): every statement after that fails with
// SQLITE_READONLY_DBMOVED, which transports answer as 503 and /health reports. The deletion under
// a real server process is in test/faults/database.test.ts; this covers the replacement.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openAccountsDb } from '../../../src/store/accounts/db.js';
import { SqliteAccountStore } from '../../../src/store/accounts/sqlite-store.js';
import { tempDbPath } from './fixtures.js';

const T0 = Date.parse('2026-03-10T12:00:30.000Z');

describe('SQLite accounts file identity', () => {
  it('a file moved over the path (a restored backup) is not written through the old connection', async () => {
    const file = tempDbPath();
    const store = new SqliteAccountStore(openAccountsDb(file));
    const k = await store.issueKey({ email: 'id@example.org', plan: 'pro', name: 'k', now: T0 });
    expect(await store.health(T0)).toEqual({ ok: true });

    // Another complete database, renamed over the path as a restore script would.
    const other = `${file}.restored`;
    const copy = openAccountsDb(other);
    copy.close();
    fs.renameSync(other, file);

    await expect(store.getAccount(k.accountId)).rejects.toMatchObject({ code: 'SQLITE_READONLY_DBMOVED', reason: 'replaced' });
    await expect(
      store.admit({
        accountId: k.accountId,
        keyId: k.row.id,
        period: '2026-03',
        minute: Math.floor(T0 / 60_000) * 60_000,
        cost: 1,
        monthlyQuota: 1_000,
        burstQuota: 60,
        maxConcurrent: 5,
        route: '/v1/topics',
        ip: null,
        now: T0,
        requestId: 'r1',
      }),
    ).rejects.toMatchObject({ code: 'SQLITE_READONLY_DBMOVED' });
    // A good probe is reused for up to a second; the next one names the fault.
    expect(await store.health(T0 + 1_001)).toEqual({ ok: false, reason: 'SQLITE_READONLY_DBMOVED' });
  });
});
