// Child process for the kill -9 test: charges in concurrent batches through the group-commit
// batcher and prints the running count of charges it was told succeeded (what a server would have
// answered) after each batch settles. The parent kills it with SIGKILL mid-run.
import { openAccountsDb } from '../../../src/store/accounts/db.js';
import { chargeBatcherOf } from '../../../src/store/accounts/charge-batcher.js';

const [file, accountId, nowStr] = process.argv.slice(2);
const db = openAccountsDb(file!);
const batcher = chargeBatcherOf(db);
const now = Number(nowStr);
let answered = 0;
for (;;) {
  const outs = await Promise.all(
    Array.from({ length: 20 }, () =>
      batcher.charge({
        accountId: accountId!,
        keyId: null,
        period: '2026-03',
        minute: now - (now % 60_000),
        cost: 1,
        monthlyQuota: 1e12,
        burstQuota: 1e12,
        route: '/v1/data',
        ip: null,
        now,
      }),
    ),
  );
  answered += outs.filter((o) => o.ok).length;
  process.stdout.write(`${answered}\n`);
}
