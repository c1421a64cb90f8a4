// What both serving-index formats (serving-index.ts: version 1, serving-index-v2.ts: version 2)
// share: the open file, its parsed JSON footer, a read buffer reused across lookups (lookups run
// synchronously, one at a time per file), and the binary search over the footer's sorted keys.
import fs from 'node:fs';

/** Binary search in an ascending string array (ASCII keys: JS order = DuckDB byte order). */
export function indexOf(sorted: readonly string[], s: string): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === s) return mid;
    if (v < s) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/** Position of `id` among `count` ascending ids read by `idAt` (a geography's variable ids), or -1. */
export function searchIds(count: number, id: number, idAt: (i: number) => number): number {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = idAt(mid);
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

export abstract class IndexFile<F extends { geos: string[]; synthetic: boolean }> {
  private scratch: Buffer;

  protected constructor(
    protected readonly fd: number,
    protected readonly footer: F,
    scratchBytes: number,
  ) {
    this.scratch = Buffer.alloc(scratchBytes);
  }

  get synthetic(): boolean {
    return this.footer.synthetic;
  }

  /** Geography keys the partition holds (sorted). */
  get geos(): readonly string[] {
    return this.footer.geos;
  }

  /** The shared buffer, grown to at least `bytes`. */
  protected buffer(bytes: number): Buffer {
    if (this.scratch.length < bytes) this.scratch = Buffer.alloc(bytes);
    return this.scratch;
  }

  /** `bytes` bytes of the file at `at`, in the shared buffer (valid until the next read). */
  protected read(bytes: number, at: number): Buffer {
    const b = this.buffer(bytes);
    fs.readSync(this.fd, b, 0, bytes, at);
    return b;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
