// The concurrent-connections layer. In-process by design: a connection lives in one process, and
// the counter must be released the instant the response ends, which a shared database cannot do
// without leaking slots when a process dies. Behind N processes each enforces its own cap
// (documented in docs/plans.md).

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
