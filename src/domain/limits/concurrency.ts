// The concurrent-connections layer of the SQLite accounts store: an in-process counter, released
// the instant the response ends. Processes sharing one SQLite file each enforce their own cap; the
// PostgreSQL store keeps slots as expiring, renewed rows shared by every replica instead, so a
// dead process's slots lapse (docs/replicas.md).

export interface Lease {
  readonly accountId: string;
  /** Idempotent: the transport may call it from several end-of-response hooks. */
  release(): void;
}

export class ConcurrencyLimiter {
  private readonly active = new Map<string, number>();
  private readonly byRequest = new Map<string, Lease>();

  inFlight(accountId: string): number {
    return this.active.get(accountId) ?? 0;
  }

  /** The lease a request already holds (a request that is charged twice is still one connection). */
  heldBy(requestId: string): Lease | undefined {
    return this.byRequest.get(requestId);
  }

  /** Take a slot if fewer than `max` are held; null when the cap is reached. */
  tryAcquire(accountId: string, max: number, requestId?: string): Lease | null {
    const n = this.inFlight(accountId);
    if (n >= max) return null;
    this.active.set(accountId, n + 1);
    let released = false;
    const lease: Lease = {
      accountId,
      release: () => {
        if (released) return;
        released = true;
        const left = this.inFlight(accountId) - 1;
        if (left <= 0) this.active.delete(accountId);
        else this.active.set(accountId, left);
        if (requestId !== undefined && this.byRequest.get(requestId) === lease) this.byRequest.delete(requestId);
      },
    };
    if (requestId !== undefined) this.byRequest.set(requestId, lease);
    return lease;
  }

  /** Release whatever the request holds; safe when it holds nothing (rejected before admission). */
  releaseRequest(requestId: string): void {
    this.byRequest.get(requestId)?.release();
  }
}
