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

/**
 * Position of `id` among the `count` ascending ids stored little-endian in `buf`, `width` bytes
 * each, one every `stride` bytes (the ids alone, or the leading id of fixed-size entries such as
 * the 6-byte annotation entries); -1 if absent.
 */
export function searchIds(buf: Buffer, width: 2 | 4, count: number, id: number, stride: number = width): number {
  let lo = 0;
  let hi = count - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = width === 2 ? buf.readUInt16LE(mid * stride) : buf.readUInt32LE(mid * stride);
    if (v === id) return mid;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Index files up to HOLD_FILE_BYTES are read into memory once opened, within HOLD_BYTES for the
 * process: a lookup then copies from memory instead of two or three pread(2) calls, which cost
 * ~10 µs each on this machine's kernel (~20% of an all-states × 10 answer's CPU).
 * Larger files, and any past the budget, are read from the page cache as before. 48 MiB holds
 * every tract file of a national build (California's, the largest, is 41 MB; at 32 MiB it was
 * read by ~18,000 pread calls per all-California answer: store CPU 49 ms, held 23–27 ms), while
 * the block-group files of the largest states (up to 115 MB) stay on disk.
 */
const HOLD_FILE_BYTES = 48 * 1024 * 1024;
const HOLD_BYTES = 128 * 1024 * 1024;
let heldBytes = 0;

/** Bytes of index files held in memory now (tests, metrics). */
export const heldIndexBytes = (): number => heldBytes;

export abstract class IndexFile<F extends { geos: string[]; synthetic: boolean }> {
  private scratch: Buffer;
  /** The whole file, when held (see HOLD_FILE_BYTES). */
  private held: Buffer | undefined;

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
    this.readInto(b, bytes, at);
    return b;
  }

  /**
   * `bytes` bytes of the file at `at`: a view of the held file (no copy), else the shared buffer
   * filled from the file (valid until the next read). A copy per read cost more than the lookup's
   * own work on a held file (Buffer#copy's checks, ~6% of an all-states × 10 answer).
   */
  protected view(bytes: number, at: number): Buffer {
    return this.held ? this.held.subarray(at, at + bytes) : this.read(bytes, at);
  }

  /** As view(), but still valid after later reads: from a file not held, a buffer of its own. */
  protected ownView(bytes: number, at: number): Buffer {
    if (this.held) return this.held.subarray(at, at + bytes);
    const b = Buffer.allocUnsafe(bytes);
    this.readInto(b, bytes, at);
    return b;
  }

  /** `bytes` bytes of the file at `at` into the start of `target`. */
  protected readInto(target: Buffer, bytes: number, at: number): void {
    if (this.held) this.held.copy(target, 0, at, at + bytes);
    else fs.readSync(this.fd, target, 0, bytes, at);
  }

  /** Read the whole file (of `size` bytes) into memory if it is small enough and the budget allows. */
  holdIfSmall(size: number): void {
    if (this.held || size > HOLD_FILE_BYTES || heldBytes + size > HOLD_BYTES) return;
    const whole = Buffer.allocUnsafe(size);
    let at = 0;
    while (at < size) {
      const n = fs.readSync(this.fd, whole, at, size - at, at);
      if (n === 0) return; // shorter than its size: keep reading from the file
      at += n;
    }
    this.held = whole;
    heldBytes += size;
  }

  close(): void {
    if (this.held) heldBytes -= this.held.length;
    this.held = undefined;
    fs.closeSync(this.fd);
  }
}
