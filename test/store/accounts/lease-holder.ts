// Child process for the lease-expiry test: takes concurrency slots for a key's account through the
// PostgreSQL store, as a replica does for requests in flight, keeps renewing them, and prints
// "held" — then waits to be killed with SIGKILL, leaving its slots behind in the database.
import { hashApiKey } from '../../../src/domain/keys.js';
import { PostgresAccountStore } from '../../../src/store/accounts/postgres/store.js';

const [url, rawKey, nStr, ttlStr] = process.argv.slice(2);
const store = new PostgresAccountStore({ url: url!, leaseTtlMs: Number(ttlStr) });
const owner = await store.findKeyOwner({ hash: hashApiKey(rawKey!) });
if (!owner) throw new Error('no such key');
const now = Date.now();
for (let i = 0; i < Number(nStr); i++) {
  const out = await store.admit({
    accountId: owner.account_id,
    keyId: owner.id,
    period: new Date(now).toISOString().slice(0, 7),
    minute: Math.floor(now / 60_000) * 60_000,
    cost: 0,
    monthlyQuota: 1_000,
    burstQuota: 1_000,
    route: '/v1/data',
    ip: null,
    now,
    requestId: `held-${i}`,
    maxConcurrent: 100,
  });
  if (!out.ok) throw new Error(`could not take slot ${i}: ${out.limit}`);
}
process.stdout.write('held\n');
setInterval(() => {}, 60_000); // stay alive (the store's own timers do not hold the process)
