// Which observation partitions are safe to read. A build is immutable, but the files under it are
// not protected from the world: a disk error, an operator's `rm` or a half-copied restore can
// leave a partition missing, truncated or different from what the manifest recorded. DuckDB then
// fails with "No magic bytes", "No files found" or "ZSTD Decompression failure", and a damaged
// serving index (cells.idx) answered other numbers with 200.
//
// Every partition is verified once at start (file present, `PAR1` magic at both ends, the footer's
// row count equal to the manifest's) and its identity (inode, size, mtime) remembered; its files
// (the Parquet file and its serving index) are hashed against the manifest's checksums on first
// use (file-integrity.ts). Before a query a cheap stat() compares the identities; only a changed
// file is verified again. A partition that fails is reported as unavailable — 503 for the requests
// that need it, nothing for the others — and listed by /health, which re-checks it on every poll
// so a restored file recovers by itself. Reads go through DuckDB's pread(), never mmap, so a file
// truncated under a running query gives an I/O error, not SIGBUS.
import fs from 'node:fs';
import { AppError } from '../domain/errors.js';
import type { DuckPool } from './duckdb.js';
import { sqlString } from './duckdb.js';
import { DamagedFile, HEALTH_RESTAT_MS, identityOf, isRacy, type FileIntegrity } from './file-integrity.js';

export interface PartitionFault {
  /** `dataset/vintage/level`. */
  partition: string;
  reason: string;
  since: string;
  /** The damaged file, relative to the build directory, when one was found damaged. */
  file?: string;
}

/** The identities of a partition's files, in order (the Parquet file first). */
type Identity = string;

interface State {
  file: string;
  /** The partition's files relative to the build (Parquet file, serving index), for their checksums. */
  rels: string[];
  /** Row count the build's manifest recorded, when it did. */
  rows: number | undefined;
  /** Verified on first use instead of at start (per-state files of a national build). */
  lazy?: boolean;
  verified?: Identity;
  /** Its files were hashed against the manifest at `verified` (else only the format checks ran). */
  hashed?: boolean;
  fault?: { reason: string; since: string; identity: Identity; file?: string };
  /** When faults() last looked at its files (Date.now()). */
  lookedAt?: number;
}

const MAGIC = Buffer.from('PAR1');

function magicOk(file: string, size: number): boolean {
  if (size < 12) return false;
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const tail = Buffer.alloc(4);
    fs.readSync(fd, head, 0, 4, 0);
    fs.readSync(fd, tail, 0, 4, size - 4);
    return head.equals(MAGIC) && tail.equals(MAGIC);
  } finally {
    fs.closeSync(fd);
  }
}

export class PartitionUnavailable extends Error {
  constructor(
    readonly partition: string,
    readonly reason: string,
    /** The damaged file, relative to the build directory, when one was found damaged. */
    readonly file?: string,
    /** What failed (DuckDB's error), for the log. */
    cause?: unknown,
  ) {
    super(`partition ${partition} unavailable: ${reason}`, cause === undefined ? undefined : { cause });
  }
}

/**
 * The client's answer for a partition (`dataset/vintage/level`) that cannot be served: 503 naming
 * the partition, never the file (/health and the log name that).
 */
export function partitionUnavailableError(partition: string, cause: unknown): AppError {
  const [dataset, vintage, level] = partition.split('/');
  return new AppError(
    'dependency-unavailable',
    `The ${dataset} ${vintage} ${level}-level data is temporarily unavailable on this server; retry with backoff. Other datasets, vintages and levels are not affected.`,
    { extensions: { dataset, vintage: Number(vintage), level }, cause },
  );
}

export class PartitionGuard {
  private readonly states = new Map<string, State>();

  /** The build's checksums; undefined for a build made before them (format checks only). */
  private readonly integrity: FileIntegrity | undefined;

  constructor(
    private readonly pool: DuckPool,
    partitions: Map<string, { file: string; rels: string[]; rows: number | undefined; lazy?: boolean }>,
    integrity?: FileIntegrity,
  ) {
    this.integrity = integrity?.recorded ? integrity : undefined;
    for (const [k, v] of partitions) this.states.set(k, { file: v.file, rels: v.rels, rows: v.rows, lazy: v.lazy });
    // require() compares their identities before every query.
    this.integrity?.checkedOnUse([...this.states.values()].flatMap((st) => st.rels));
  }

  /** The identities of the partition's files now ('' for a missing one, '-' when the Parquet file is missing). */
  private identityNow(st: State): Identity {
    const parquet = identityOf(st.file);
    if (!parquet) return '-';
    if (!this.integrity) return parquet;
    return [parquet, ...st.rels.slice(1).map((r) => identityOf(this.integrity!.pathOf(r)))].join('|');
  }

  /**
   * Verify every partition but the lazy ones (start-up); ~5 ms per file, the footers then stay in
   * DuckDB's cache. `hash`: their checksums too (else on first use; docs/performance.md compares).
   */
  async verifyAll(hash = false): Promise<void> {
    await Promise.all([...this.states.entries()].filter(([, st]) => !st.lazy).map(([k]) => this.verify(k, hash)));
  }

  /** Throws PartitionUnavailable when the partition cannot be served right now. */
  async require(partition: string): Promise<void> {
    const st = this.states.get(partition);
    if (!st) return;
    const id = this.identityNow(st);
    const settled = !this.integrity || !id.split('|').some(isRacy);
    if (st.verified === id && settled && !st.fault && (st.hashed || !this.integrity)) return;
    // A faulted file that has not changed since is still faulted: no re-verification per request.
    if (st.fault?.identity === id && settled) throw this.unavailable(partition, st);
    await this.verify(partition);
    if (st.fault) throw this.unavailable(partition, st);
  }

  private unavailable(partition: string, st: State): PartitionUnavailable {
    return new PartitionUnavailable(partition, st.fault!.reason, st.fault!.file);
  }

  /**
   * DuckDB could not read a partition the checks passed (a damage they cannot see, such as a
   * same-size change in a build without checksums): it is unavailable until its files change.
   */
  markUnreadable(partition: string, reason: string, cause?: unknown): PartitionUnavailable {
    const st = this.states.get(partition);
    if (!st) return new PartitionUnavailable(partition, reason, undefined, cause);
    const identity = this.identityNow(st);
    if (st.fault?.reason !== reason) st.fault = { reason, since: new Date().toISOString(), identity };
    else st.fault.identity = identity;
    st.verified = undefined;
    return new PartitionUnavailable(partition, reason, undefined, cause);
  }

  /** The partition (guard key) whose Parquet file is `file`, if any. */
  partitionOfFile(file: string): string | undefined {
    for (const [k, st] of this.states) if (st.file === file) return k;
    return undefined;
  }

  /** After DuckDB failed on a query: was it one of these partitions? Returns the first faulted one. */
  async suspect(partitions: string[]): Promise<PartitionUnavailable | undefined> {
    for (const p of partitions) {
      const st = this.states.get(p);
      if (!st) continue;
      await this.verify(p);
      if (st.fault) return this.unavailable(p, st);
    }
    return undefined;
  }

  /**
   * Current faults, each re-checked first (so /health recovers by itself once files are back).
   * A partition without a fault is looked at every HEALTH_RESTAT_MS only: require() re-checks it
   * before any query reads it anyway.
   */
  async faults(): Promise<PartitionFault[]> {
    const out: PartitionFault[] = [];
    const now = Date.now();
    for (const [k, st] of this.states) {
      if (!st.fault && now - (st.lookedAt ?? -Infinity) < HEALTH_RESTAT_MS) continue;
      st.lookedAt = now;
      const id = this.identityNow(st);
      const settled = !this.integrity || !id.split('|').some(isRacy);
      if (!st.fault && id === st.verified && settled) continue;
      // A lazy file never used yet is only checked for presence here (its first request verifies it).
      if (st.lazy && !st.verified && !st.fault && id !== '-') continue;
      // Checked at start but not hashed yet: its first request hashes it (its files may be fine).
      if (!st.fault && !st.hashed && this.integrity) continue;
      if (!st.fault || st.fault.identity !== id || !settled) await this.verify(k);
      if (st.fault)
        out.push({ partition: k, reason: st.fault.reason, since: st.fault.since, ...(st.fault.file ? { file: st.fault.file } : {}) });
    }
    return out;
  }

  private async verify(partition: string, hash = true, attempt = 1): Promise<void> {
    const st = this.states.get(partition)!;
    const id = this.identityNow(st);
    // A file replaced while it was checked (renamed over, swapped back): the verdict would be about
    // other bytes than the identity it is kept with, and a fault kept with the old identity would
    // outlive the repair. So it is checked again, as FileIntegrity re-reads a file that changed.
    const changed = () => this.identityNow(st) !== id;
    const fail = (reason: string, file?: string): Promise<void> | void => {
      if (changed() && attempt < 3) return this.verify(partition, hash, attempt + 1);
      if (!st.fault || st.fault.reason !== reason || st.fault.file !== file)
        st.fault = { reason, since: new Date().toISOString(), identity: id, ...(file ? { file } : {}) };
      else st.fault.identity = id;
      st.verified = undefined;
    };
    if (id === '-') return fail('file missing');
    for (const rel of this.integrity && hash ? st.rels : []) {
      try {
        await this.integrity!.check(rel);
      } catch (e) {
        if (e instanceof DamagedFile) return fail(e.reason, e.file);
        throw e;
      }
    }
    try {
      if (!magicOk(st.file, fs.statSync(st.file).size)) return fail('not a complete Parquet file (truncated or overwritten)');
    } catch (e) {
      return fail(`unreadable (${(e as NodeJS.ErrnoException).code ?? 'I/O error'})`);
    }
    if (st.rows !== undefined) {
      try {
        const [rows] = (await this.pool.columns(`SELECT num_rows FROM parquet_file_metadata(${sqlString(st.file)})`)) as [
          Array<bigint | number>,
        ];
        const n = Number(rows?.[0] ?? -1);
        if (n !== st.rows) return fail(`row count ${n} differs from the manifest's ${st.rows}`);
      } catch {
        return fail('Parquet footer unreadable');
      }
    }
    if (changed() && attempt < 3) return this.verify(partition, hash, attempt + 1);
    st.fault = undefined;
    st.verified = id;
    st.hashed = hash;
  }
}
