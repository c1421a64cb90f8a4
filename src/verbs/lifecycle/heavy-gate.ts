// Heavy requests (wildcard expansions, geometry, CSV) wait their turn in a small queue of their
// own, so that however many of them arrive — Pro alone allows 25 concurrent requests per account —
// at most HEAVY_CONCURRENCY are computed and serialized at once, and light requests (/v1/topics,
// one geography) never queue behind them. Measured in bench/heavy.ts. A slot is held until the
// response is fully written (streams included), since serialization is most of the work.
import { AppError } from '../../domain/errors.js';

export class HeavyGate {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxQueue: number,
  ) {}

  get inFlight(): number {
    return this.running;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Wait for a slot; returns its release (idempotent). Throws 503 when the queue is full. */
  async acquire(): Promise<() => void> {
    if (this.running >= this.concurrency) {
      if (this.queue.length >= this.maxQueue) {
        throw new AppError(
          'dependency-unavailable',
          'The server is busy with large requests; retry with backoff, or narrow the request (fewer geographies or variables, no geometry).',
          {
            headers: { 'Retry-After': '2' },
          },
        );
      }
      await new Promise<void>((resolve) => this.queue.push(resolve));
    }
    this.running++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.running--;
      const next = this.queue.shift();
      if (next) next();
    };
    return release;
  }
}
