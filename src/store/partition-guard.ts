// Which observation partitions are safe to read. A build is immutable, but the files under it are
// not protected from the world: a disk error, an operator's `rm` or a half-copied restore can
// leave a partition missing, truncated or different from what the manifest recorded. DuckDB then
// fails with "No magic bytes" or "No files found", which used to surface as 500 internal-error.
//
// Every partition is verified once at start (file present, `PAR1` magic at both ends, the footer's
// row count equal to the manifest's) and its identity (inode, size, mtime) remembered. Before a
// query a cheap stat() compares the identity; only a changed file is verified again. A partition
// that fails is reported as unavailable — 503 for the requests that need it, nothing for the
// others — and listed by /health, which re-checks it on every poll so a restored file recovers by
// itself. Reads go through DuckDB's pread(), never mmap, so a file truncated under a running query
// gives an I/O error, not SIGBUS.
import fs from 'node:fs';
import type { DuckPool } from './duckdb.js';
import { sqlString } from './duckdb.js';

export interface PartitionFault {
  /** `dataset/vintage/level`. */
  partition: string;
  reason: string;
  since: string;
}

interface Identity {
  ino: number;
  size: number;
  mtimeMs: number;
}

interface State {
  file: string;
  /** Row count the build's manifest recorded, when it did. */
  rows: number | undefined;
  /** Verified on first use instead of at start (per-state files of a national build). */
  lazy?: boolean;
  verified?: Identity;
  fault?: { reason: string; since: string; identity?: Identity };
}

const MAGIC = Buffer.from('PAR1');

function identityOf(file: string): Identity | undefined {
  try {
    const s = fs.statSync(file);
    return s.isFile() ? { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs } : undefined;
  } catch {
    return undefined;
  }
}

const same = (a: Identity | undefined, b: Identity | undefined) =>
  !!a && !!b && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;

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
  ) {
    super(`partition ${partition} unavailable: ${reason}`);
  }
}

export class PartitionGuard {
  private readonly states = new Map<string, State>();

  constructor(
    private readonly pool: DuckPool,
    partitions: Map<string, { file: string; rows: number | undefined; lazy?: boolean }>,
  ) {
    for (const [k, v] of partitions) this.states.set(k, { file: v.file, rows: v.rows, lazy: v.lazy });
  }

  /** Verify every partition but the lazy ones (start-up); ~5 ms per file, the footers then stay in DuckDB's cache. */
  async verifyAll(): Promise<void> {
    await Promise.all([...this.states.entries()].filter(([, st]) => !st.lazy).map(([k]) => this.verify(k)));
  }

  /** Throws PartitionUnavailable when the partition cannot be served right now. */
  async require(partition: string): Promise<void> {
    const st = this.states.get(partition);
    if (!st) return;
    const id = identityOf(st.file);
    if (st.verified && same(id, st.verified) && !st.fault) return;
    // A faulted file that has not changed since is still faulted: no re-verification per request.
    if (st.fault && (same(id, st.fault.identity) || (!id && !st.fault.identity)))
      throw new PartitionUnavailable(partition, st.fault.reason);
    await this.verify(partition);
    if (st.fault) throw new PartitionUnavailable(partition, st.fault.reason);
  }

  /** After DuckDB failed on a query: was it one of these partitions? Returns the first faulted one. */
  async suspect(partitions: string[]): Promise<PartitionUnavailable | undefined> {
    for (const p of partitions) {
      const st = this.states.get(p);
      if (!st) continue;
      await this.verify(p);
      if (st.fault) return new PartitionUnavailable(p, st.fault.reason);
    }
    return undefined;
  }

  /** Current faults, each re-checked first (so /health recovers by itself once files are back). */
  async faults(): Promise<PartitionFault[]> {
    const out: PartitionFault[] = [];
    for (const [k, st] of this.states) {
      const id = identityOf(st.file);
      if (!st.fault && same(id, st.verified)) continue;
      // A lazy file never used yet is only checked for presence here (its first request verifies it).
      if (st.lazy && !st.verified && !st.fault && id) continue;
      if (!st.fault || !same(id, st.fault.identity) || !id) await this.verify(k);
      if (st.fault) out.push({ partition: k, reason: st.fault.reason, since: st.fault.since });
    }
    return out;
  }

  private async verify(partition: string): Promise<void> {
    const st = this.states.get(partition)!;
    const id = identityOf(st.file);
    const fail = (reason: string) => {
      if (!st.fault || st.fault.reason !== reason) st.fault = { reason, since: new Date().toISOString(), identity: id };
      else st.fault.identity = id;
      st.verified = undefined;
    };
    if (!id) return fail('file missing');
    try {
      if (!magicOk(st.file, id.size)) return fail('not a complete Parquet file (truncated or overwritten)');
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
    st.fault = undefined;
    st.verified = id;
  }
}
