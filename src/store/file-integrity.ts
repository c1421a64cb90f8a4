// Every file the server reads is checked against the SHA-256 its build's manifest recorded
// (`files`, written by etl/output-checksums.ts), so a damaged file is refused instead of serving
// wrong numbers. A build is immutable, but its files are not protected from the world (a disk
// error, a bad restore, a stray write): a same-size change keeps every format check happy, and a
// flipped byte in the serving index answered another number with 200.
//
// A file is hashed in full the first time it is used, then its verdict is kept with its identity
// (inode, size, mtime): later uses cost one stat(), and only a file that changed is hashed again,
// so a repaired file recovers by itself. A file is hashed on a worker thread (file-hash-thread.ts),
// so other requests keep being answered meanwhile, on the other core.
// Builds made before the manifest recorded checksums have none to check: `recorded` is false and
// every check passes (the partition guard's format checks still apply; docs/operations.md). A
// manifest that cannot be read (or whose seal differs, data-dir.ts) is the opposite: every check
// fails, naming it, until a /health poll reads it again (withUnreadableManifest).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../domain/errors.js';
import { ManifestInvalid } from './data-dir.js';
import { hashFile } from './file-hash-thread.js';

/** A file's identity: `inode:size:mtime`, or '' when it is missing. */
export type FileIdentity = string;

/**
 * File times come from a coarse clock (a scheduler tick, up to 10 ms), so a second same-size
 * write within one tick of the first leaves the identity unchanged. A verdict on a file modified
 * this recently is therefore not kept: it is hashed again on its next use, until its time is past
 * this (the "racily clean" case git handles the same way).
 */
const RACY_MS = 1000;

/** Whether `identity` is too recent to stand for the file's content (see RACY_MS). */
export function isRacy(identity: FileIdentity): boolean {
  const mtime = Number(identity.slice(identity.lastIndexOf(':') + 1));
  return identity !== '' && Date.now() - mtime < RACY_MS;
}

export function identityOf(file: string): FileIdentity {
  try {
    const s = fs.statSync(file);
    return s.isFile() ? `${s.ino}:${s.size}:${s.mtimeMs}` : '';
  } catch {
    return '';
  }
}

export class DamagedFile extends Error {
  constructor(
    /** Path relative to the build directory. */
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
  }
}

export interface FileFault {
  /** Path relative to the build directory. */
  file: string;
  reason: string;
  since: string;
}

/**
 * How often /health (faults()) looks again at an intact file that is re-checked on every use
 * anyway (checkedOnUse: the partitions and their serving indexes, ~3,400 files on a national
 * build, where a stat of each on every poll was most of the poll). Damage to such a file is found
 * by the first request that reads it, and by /health within this time otherwise; a damaged file is
 * looked at on every poll, so its repair shows at once.
 */
export const HEALTH_RESTAT_MS = 30_000;

interface Verdict {
  identity: FileIdentity;
  fault?: { reason: string; since: string };
}

const CHUNK_BYTES = 1024 * 1024;

type Expected = Readonly<Record<string, { sha256: string; bytes: number }>>;

/** Reads the manifest again: its checksums (`files`) and its bytes as read; throws while it is still unreadable. */
export type ManifestRetry = () => Promise<{ files: Expected | undefined; bytes: Buffer }>;

/** SHA-256 (hex) of bytes in memory, a CHUNK_BYTES piece per turn of the event loop (as a file is hashed). */
async function sha256Of(bytes: Buffer): Promise<string> {
  const h = createHash('sha256');
  for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    h.update(bytes.subarray(at, at + CHUNK_BYTES));
  }
  return h.digest('hex');
}

/** Why a manifest could not be read, for /health (never sent to a client). */
export function manifestReason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  if (code === 'ENOENT') return 'file missing';
  if (code) return `unreadable (${code})`;
  // Its own words for a seal or shape that does not hold; not JSON.parse's, which quote the file.
  if (e instanceof ManifestInvalid) return e.message;
  return 'not valid JSON (damaged)';
}

/** A store left out at start because a file it reads was damaged, loaded once the file is repaired. */
interface Deferred {
  name: string;
  files: readonly string[];
  load: () => Promise<unknown>;
  loading?: Promise<void>;
}

/** The build's manifest, relative to the build directory: what every other file is checked against. */
export const MANIFEST_FILE = 'manifest.json';

export class FileIntegrity {
  private readonly verdicts = new Map<string, Verdict>();
  private readonly hashing = new Map<string, Promise<void>>();
  private readonly deferred: Deferred[] = [];
  /** Files every read of which calls check() first (see HEALTH_RESTAT_MS). */
  private readonly onUse = new Set<string>();
  /** When faults() last looked at each file (Date.now()). */
  private readonly lookedAt = new Map<string, number>();

  /**
   * Why the manifest could not be read (it is then what /health names, and every check fails),
   * with `retry`, which reads it again: a build whose manifest is unreadable is not served, since
   * without it no other file can be checked.
   */
  private manifestFault: { reason: string; since: string; retry: ManifestRetry } | undefined;

  constructor(
    readonly buildDir: string,
    private expected: Expected | undefined,
  ) {}

  /**
   * An integrity for a build whose manifest could not be read (`reason`): every check fails with
   * the manifest named, until `retry` reads it (it is tried by every /health poll, see faults()).
   */
  static withUnreadableManifest(buildDir: string, reason: string, retry: ManifestRetry): FileIntegrity {
    const integrity = new FileIntegrity(buildDir, undefined);
    integrity.manifestFault = { reason, since: new Date().toISOString(), retry };
    return integrity;
  }

  /** Whether the build's manifest records checksums (builds made before it do not), or could not be read at all. */
  get recorded(): boolean {
    return this.expected !== undefined || this.manifestFault !== undefined;
  }

  /** Read the manifest again if it was unreadable; true once it is readable. */
  private async retryManifest(): Promise<boolean> {
    const f = this.manifestFault;
    if (!f) return true;
    try {
      const { files, bytes } = await f.retry();
      this.manifestFault = undefined;
      this.expected = files;
      await this.pin(MANIFEST_FILE, bytes);
      return true;
    } catch (e) {
      const reason = manifestReason(e);
      if (reason !== f.reason) this.manifestFault = { ...f, reason, since: new Date().toISOString() };
      return false;
    }
  }

  /** Declare files that are check()ed before every read, so /health looks at them only every HEALTH_RESTAT_MS while intact. */
  checkedOnUse(rels: Iterable<string>): void {
    for (const rel of rels) this.onUse.add(rel);
  }

  /**
   * Record `rel` as it is now (its SHA-256 and size) and check it like any other file from then
   * on: for the manifest itself (`bytes`: as the server read it), which holds no checksum of its
   * own bytes, so that /health reports a change to it on disk after the server read it.
   */
  async pin(rel: string, bytes: Buffer): Promise<void> {
    if (!this.expected) return; // a build without checksums: nothing is checked
    this.expected = { ...this.expected, [rel]: { sha256: await sha256Of(bytes), bytes: bytes.length } };
    await this.check(rel);
  }

  /** Whether `rel` has a recorded checksum to be checked against. */
  covers(rel: string): boolean {
    return this.expected?.[rel] !== undefined;
  }

  /** Absolute path of `rel` in the build. */
  pathOf(rel: string): string {
    return path.join(this.buildDir, rel);
  }

  /**
   * Resolves when `rel` is as the build recorded it (or has no recorded checksum); throws
   * DamagedFile otherwise. A stat() when the file has not changed since its last check.
   */
  async check(rel: string): Promise<void> {
    if (this.manifestFault) throw new DamagedFile(MANIFEST_FILE, this.manifestFault.reason);
    if (!this.covers(rel)) return;
    const v = this.verdicts.get(rel);
    if (!v || v.identity !== identityOf(this.pathOf(rel)) || isRacy(v.identity)) await this.verify(rel);
    const fault = this.verdicts.get(rel)?.fault;
    if (fault) throw new DamagedFile(rel, fault.reason);
  }

  /**
   * As check(), but a damaged file is 503 dependency-unavailable with `detail` (the client is not
   * told the file's name; /health and the log are).
   */
  async require(rel: string, detail: string): Promise<void> {
    try {
      await this.check(rel);
    } catch (e) {
      if (e instanceof DamagedFile) throw new AppError('dependency-unavailable', detail, { cause: e });
      throw e;
    }
  }

  /**
   * The bytes of `rel`, read whole and checked against the manifest: the very bytes hashed are
   * the ones returned, so a file changed between a check and a read cannot slip through. The
   * verdict is kept as check() keeps it (/health lists a damaged file and sees its repair).
   * Throws DamagedFile when the bytes differ; a file the manifest does not cover is returned as
   * read (a missing one throws the read's own error, ENOENT).
   */
  async read(rel: string): Promise<Buffer> {
    if (this.manifestFault) throw new DamagedFile(MANIFEST_FILE, this.manifestFault.reason);
    const file = this.pathOf(rel);
    for (let attempt = 1; ; attempt++) {
      const before = identityOf(file);
      let bytes: Buffer;
      try {
        bytes = await fsp.readFile(file);
      } catch (e) {
        if (!this.covers(rel)) throw e;
        const code = (e as NodeJS.ErrnoException).code;
        this.record(rel, before, code === 'ENOENT' ? 'file missing' : `unreadable (${code ?? 'I/O error'})`);
        throw new DamagedFile(rel, this.verdicts.get(rel)!.fault!.reason);
      }
      if (!this.covers(rel)) return bytes;
      // Changed while it was read: read again (the identity kept must be that of these bytes).
      if (identityOf(file) !== before && attempt < 3) continue;
      const want = this.expected![rel]!;
      let reason: string | undefined;
      if (identityOf(file) !== before) reason = 'changing while read';
      else if (bytes.length !== want.bytes) reason = `size ${bytes.length} differs from the manifest's ${want.bytes}`;
      else if ((await sha256Of(bytes)) !== want.sha256) reason = 'checksum differs from the manifest (damaged)';
      this.record(rel, before, reason);
      if (reason) throw new DamagedFile(rel, reason);
      return bytes;
    }
  }

  /** The identity `rel` had when last found intact; undefined when never checked, damaged, or not covered. */
  verifiedIdentity(rel: string): FileIdentity | undefined {
    const v = this.verdicts.get(rel);
    return v && !v.fault ? v.identity : undefined;
  }

  /**
   * Files found damaged. Every file checked so far is looked at again first (a stat() each; a hash
   * when it changed), so a repaired file leaves the list, and one damaged on disk after it was
   * read into memory (the catalog, a boundary file) is reported for the operator to restore
   * before the next start, although what is served from memory is still what was verified.
   * Intact files checked on use are looked at only every HEALTH_RESTAT_MS.
   */
  async faults(): Promise<FileFault[]> {
    if (!(await this.retryManifest())) {
      const f = this.manifestFault!;
      return [{ file: MANIFEST_FILE, reason: f.reason, since: f.since }];
    }
    const out: FileFault[] = [];
    const polledAt = Date.now();
    for (const [rel, v] of [...this.verdicts]) {
      if (!v.fault && this.onUse.has(rel) && polledAt - (this.lookedAt.get(rel) ?? -Infinity) < HEALTH_RESTAT_MS) continue;
      this.lookedAt.set(rel, polledAt);
      if (v.identity !== identityOf(this.pathOf(rel)) || isRacy(v.identity)) await this.verify(rel);
      const now = this.verdicts.get(rel)!.fault;
      if (!now) continue;
      out.push({ file: rel, reason: now.reason, since: now.since });
    }
    return out.sort((a, b) => (a.file < b.file ? -1 : 1));
  }

  /** Load store `name` with `load` once every one of `files` is intact again (see recover). */
  deferUntilRepaired(name: string, files: readonly string[], load: () => Promise<unknown>): void {
    this.deferred.push({ name, files, load });
  }

  /**
   * Load the stores deferred by deferUntilRepaired whose files are intact now, each into
   * `into[name]` (the live stores). /health calls it on every poll, so a store whose file was
   * damaged at start comes back once the file is restored, as a partition does. A store that
   * still fails to load stays deferred (its files are then reported damaged by the next check
   * or, if they are intact, the load error is logged by the caller).
   */
  async recover(into: Record<string, unknown>): Promise<string[]> {
    const loaded: string[] = [];
    if (!(await this.retryManifest())) return loaded;
    for (const d of [...this.deferred]) {
      try {
        for (const f of d.files) await this.check(f);
      } catch {
        continue;
      }
      d.loading ??= d.load().then(
        (store) => {
          into[d.name] = store;
          this.deferred.splice(this.deferred.indexOf(d), 1);
          loaded.push(d.name);
        },
        () => (d.loading = undefined),
      );
      await d.loading;
    }
    return loaded;
  }

  /** Stores still left out because of a damaged file (names). */
  get deferredStores(): string[] {
    return this.deferred.map((d) => d.name);
  }

  /** Hash `rel` now (one hash at a time per file: concurrent callers share it). */
  private verify(rel: string): Promise<void> {
    let p = this.hashing.get(rel);
    if (!p) {
      p = this.hash(rel).finally(() => this.hashing.delete(rel));
      this.hashing.set(rel, p);
    }
    return p;
  }

  private async hash(rel: string, attempt = 1): Promise<void> {
    const want = this.expected![rel]!;
    const file = this.pathOf(rel);
    const before = identityOf(file);
    let reason: string | undefined;
    if (!before) reason = 'file missing';
    else {
      try {
        // On a thread of its own (file-hash-thread.ts): the main thread goes on answering.
        const { bytes, sha256 } = await hashFile(file);
        if (bytes !== want.bytes) reason = `size ${bytes} differs from the manifest's ${want.bytes}`;
        else if (sha256 !== want.sha256) reason = 'checksum differs from the manifest (damaged)';
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        // The hashing thread died (not the file's fault): hashed again on a new thread.
        if (code === 'EWORKER' && attempt < 3) return this.hash(rel, attempt + 1);
        reason = `unreadable (${code ?? 'I/O error'})`;
      }
    }
    // Changed while it was read: the bytes hashed may mix both versions, so they are read again.
    if (identityOf(file) !== before) {
      if (attempt < 3) return this.hash(rel, attempt + 1);
      reason = 'changing while read';
    }
    this.record(rel, before, reason);
  }

  private record(rel: string, identity: FileIdentity, reason: string | undefined): void {
    const prev = this.verdicts.get(rel)?.fault;
    const fault = reason ? (prev?.reason === reason ? prev : { reason, since: new Date().toISOString() }) : undefined;
    this.verdicts.set(rel, { identity, fault });
  }
}
