// Group commit for usage charges. Each admitted request used to run its own IMMEDIATE
// transaction (take the write lock, five statements, commit); under load most of that is the
// lock and the commit. Charges that arrive in the same turn of the event loop are now run in one
// transaction, each with the same checks as before (conditional UPSERTs check and increment
// together; a refused charge leaves its counters as they were), and every caller's promise settles
// only after the shared COMMIT. So:
//   * limits stay exact across processes: the batch holds SQLite's write lock while it checks;
//   * a request is durably charged before it is answered (a kill -9 after the answer finds the
//     charge committed; one before the commit leaves neither charge nor answer);
//   * latency grows by at most one event-loop turn.
import { type Db } from './db.js';
import { chargeHoldingLock, tryCharge, type ChargeInput, type ChargeOutcome } from './usage-repo.js';

/** A charge of the fast pass threw: the pass is rolled back and the batch run charge by charge. */
class FastPassFailed extends Error {}

interface Pending {
  input: ChargeInput;
  resolve: (o: ChargeOutcome) => void;
  reject: (e: unknown) => void;
}

export class ChargeBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  /** Batches committed and charges in them, for the benchmark and tests. */
  readonly stats = { batches: 0, charges: 0, slowPasses: 0 };

  constructor(private readonly db: Db) {}

  charge(input: ChargeInput): Promise<ChargeOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    let outcomes: Array<{ ok: ChargeOutcome } | { error: unknown }>;
    try {
      outcomes = this.run(batch);
    } catch (e) {
      // The COMMIT (or BEGIN) failed: nothing in the batch was charged, so nobody is answered.
      for (const p of batch) p.reject(e);
      return;
    }
    this.stats.batches++;
    this.stats.charges += batch.length;
    batch.forEach((p, i) => {
      const o = outcomes[i]!;
      if ('ok' in o) p.resolve(o.ok);
      else p.reject(o.error);
    });
  }

  /**
   * The fast pass: every charge without a savepoint (chargeHoldingLock). Should one throw (an
   * SQLite error, not a refusal), the whole pass rolls back and the batch runs again with each
   * charge in its own savepoint, so only that request fails and the others still commit.
   */
  private run(batch: Pending[]): Array<{ ok: ChargeOutcome } | { error: unknown }> {
    try {
      return this.db
        .transaction(() =>
          batch.map((p) => {
            try {
              return { ok: chargeHoldingLock(this.db, p.input) };
            } catch {
              throw new FastPassFailed();
            }
          }),
        )
        .immediate();
    } catch (e) {
      if (!(e instanceof FastPassFailed)) throw e;
    }
    this.stats.slowPasses++;
    return this.db
      .transaction(() =>
        batch.map((p) => {
          try {
            return { ok: tryCharge(this.db, p.input) };
          } catch (error) {
            // tryCharge's own (nested) transaction rolled back to its savepoint: only this
            // request fails; the others in the batch still commit.
            return { error };
          }
        }),
      )
      .immediate();
  }
}

const batchers = new WeakMap<Db, ChargeBatcher>();

export function chargeBatcherOf(db: Db): ChargeBatcher {
  let b = batchers.get(db);
  if (!b) batchers.set(db, (b = new ChargeBatcher(db)));
  return b;
}
