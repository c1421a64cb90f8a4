// /health's database probe, for both accounts stores: a real write (a full disk or a read-only
// database still answers SELECTs), at most one per second however often the balancer polls; every
// poll after a fault probes again, so health recovers by itself when the fault goes.
import type { DatabaseHealth } from '../store.js';

const PROBE_EVERY_MS = 1_000;

export class HealthProbe {
  private last: { at: number; health: DatabaseHealth } | undefined;

  /** The last answer while it is healthy and under a second old; otherwise undefined (probe again). */
  recent(now: number): DatabaseHealth | undefined {
    return this.last && this.last.health.ok && now - this.last.at < PROBE_EVERY_MS ? this.last.health : undefined;
  }

  note(now: number, health: DatabaseHealth): DatabaseHealth {
    this.last = { at: now, health };
    return health;
  }
}
