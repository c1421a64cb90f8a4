// The stores requests are served from, switchable while serving. Each request takes a lease on
// the generation that is live when it arrives and keeps those stores to its end, whatever switches
// meanwhile; a new build becomes live for the next request at once. The previous generation's
// data stores are closed once its last lease is returned (drained), never under a running request.
import type { Stores } from './stores.js';

interface Generation {
  stores: Stores;
  inFlight: number;
  retired: boolean;
  close: () => void;
  drained?: () => void;
}

export interface StoresLease {
  stores: Stores;
  release(): void;
}

export class LiveStores {
  private gen: Generation;
  private draining = new Set<Generation>();

  constructor(stores: Stores, close: () => void = () => {}) {
    this.gen = { stores, inFlight: 0, retired: false, close };
  }

  /** The live stores (for work outside a request: health of the source, metrics). */
  get stores(): Stores {
    return this.gen.stores;
  }

  /** Requests being served from the live generation right now. */
  get inFlight(): number {
    return this.gen.inFlight;
  }

  /** Generations switched away from whose requests are still running. */
  get drainingCount(): number {
    return this.draining.size;
  }

  /** Called once per request; `release` exactly once when its response has ended. */
  acquire(): StoresLease {
    const g = this.gen;
    g.inFlight++;
    let done = false;
    return {
      stores: g.stores,
      release: () => {
        if (done) return;
        done = true;
        if (--g.inFlight === 0 && g.retired) this.finish(g);
      },
    };
  }

  /**
   * Serve `data` (the data stores of another build) from the next request on; every other member
   * (accounts, identity, billing, the build source) is carried over. Resolves once the previous
   * data stores have drained and been closed.
   */
  switchTo(data: Stores, close: () => void, carry: Stores = {}): Promise<void> {
    const old = this.gen;
    const stores: Stores = { ...old.stores, ...carry };
    for (const k of DATA_MEMBERS) delete stores[k];
    Object.assign(stores, data);
    this.gen = { stores, inFlight: 0, retired: false, close };
    old.retired = true;
    this.draining.add(old);
    const drained = new Promise<void>((resolve) => (old.drained = resolve));
    if (old.inFlight === 0) this.finish(old);
    return drained;
  }

  /** Shutdown: close the live generation's data stores (the draining ones close when they drain). */
  close(): void {
    this.gen.close();
  }

  private finish(g: Generation): void {
    if (!this.draining.delete(g)) return;
    try {
      g.close();
    } finally {
      g.drained?.();
    }
  }
}

/** The members that belong to one data build (replaced on a switch); the rest outlive builds. */
export const DATA_MEMBERS = ['catalog', 'geographies', 'observations', 'censusTables', 'boundaries', 'build', 'integrity'] as const;
