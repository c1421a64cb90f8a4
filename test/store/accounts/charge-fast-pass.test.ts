// The batch's fast pass (chargeHoldingLock: UPSERTs, no savepoint) must decide every charge as the
// savepoint path (tryCharge) does and leave the same counters and request log; and when one charge
// of a batch fails with an SQLite error, only that request fails, as before.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chargeBatcherOf } from '../../../src/store/accounts/charge-batcher.js';
import { openAccountsDb, stmt, type Db } from '../../../src/store/accounts/db.js';
import { chargeHoldingLock, tryCharge, type ChargeInput } from '../../../src/store/accounts/usage-repo.js';
import { tempDbPath } from './fixtures.js';

const input = (o: Partial<ChargeInput>): ChargeInput => ({
  accountId: 'acc_a',
  keyId: null,
  period: '2026-03',
  minute: 0,
  cost: 1,
  monthlyQuota: 1_000,
  burstQuota: 100,
  route: '/v1/data',
  ip: null,
  now: 1,
  ...o,
});

/** What any reader can tell apart: rows at zero are the same as no row (monthlyUnits() and the usage views read 0). */
function state(db: Db) {
  return {
    periods: stmt(db, 'SELECT * FROM usage_periods WHERE units <> 0 OR requests <> 0 ORDER BY account_id, period').all(),
    minutes: stmt(db, 'SELECT * FROM usage_minutes WHERE requests <> 0 ORDER BY account_id, window_start').all(),
    log: stmt(db, 'SELECT * FROM request_log ORDER BY id').all(),
  };
}

describe('charge fast pass', () => {
  it('decides like the savepoint path and leaves the same counters (property, 80 random sequences)', () => {
    const charge = fc.record({
      accountId: fc.constantFrom('acc_a', 'acc_b'),
      period: fc.constantFrom('2026-03', '2026-04'),
      minute: fc.constantFrom(0, 60_000),
      cost: fc.integer({ min: 0, max: 6 }),
      monthlyQuota: fc.integer({ min: 0, max: 20 }),
      burstQuota: fc.integer({ min: 0, max: 5 }),
    });
    fc.assert(
      fc.property(fc.array(fc.array(charge, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 8 }), (batches) => {
        const fast = openAccountsDb(tempDbPath());
        const slow = openAccountsDb(tempDbPath());
        try {
          for (const batch of batches) {
            const inputs = batch.map((c, i) => input({ ...c, now: i }));
            const a = fast.transaction(() => inputs.map((c) => chargeHoldingLock(fast, c))).immediate();
            const b = slow.transaction(() => inputs.map((c) => tryCharge(slow, c))).immediate();
            expect(a).toEqual(b);
          }
          expect(state(fast)).toEqual(state(slow));
        } finally {
          fast.close();
          slow.close();
        }
      }),
      { numRuns: 80 },
    );
  });

  it('a charge failing with an SQLite error fails alone: the batch is run again charge by charge', async () => {
    const db = openAccountsDb(tempDbPath());
    const batcher = chargeBatcherOf(db);
    // route is NOT NULL in request_log: this charge's last statement fails.
    const broken = input({ route: null as unknown as string });
    const settled = await Promise.allSettled([batcher.charge(input({})), batcher.charge(broken), batcher.charge(input({}))]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(batcher.stats).toMatchObject({ batches: 1, charges: 3, slowPasses: 1 });
    expect(stmt(db, 'SELECT units, requests FROM usage_periods').get()).toEqual({ units: 2, requests: 2 });
    expect(stmt(db, 'SELECT requests FROM usage_minutes').get()).toEqual({ requests: 2 });
    expect(stmt(db, 'SELECT count(*) AS n FROM request_log').get()).toEqual({ n: 2 });
    db.close();
  });
});
