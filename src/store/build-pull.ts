// Pulling a published build into the local data directory (DATA_SOURCE). The build is written
// to a temporary directory beside the others and every file is checked against the SHA-256 and
// size its index names (the index against the hash `latest.json` names); only a build that
// verified whole is renamed to `builds/<id>` and marked. A corrupt, truncated or missing object
// fails the pull: nothing of it is kept, nothing of it is served. Files the local builds already
// hold (same hash) are hard-linked instead of downloaded, and checked like downloads.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ObjectStore } from './object-store/index.js';
import {
  blobKey,
  buildIndexSchema,
  indexKey,
  isBuildId,
  LATEST_KEY,
  latestSchema,
  PULLED_MARKER,
  sha256File,
  sha256Of,
  type BuildIndex,
  type Latest,
} from './published-build.js';

/** The published build is damaged or incomplete: refused, never served. */
export class BuildVerificationError extends Error {}

export interface PulledBuild {
  buildId: string;
  dir: string;
  /** Files fetched from the store now (0: the build was already here). */
  downloaded: number;
  downloadedBytes: number;
  /** Files linked from builds already on disk. */
  linked: number;
}

function parseJson<T>(raw: Buffer, schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, what: string): T {
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new BuildVerificationError(`${what} is not JSON`);
  }
  const r = schema.safeParse(value);
  if (!r.success) throw new BuildVerificationError(`${what} is not a build pointer/index this version understands`);
  return r.data;
}

/** The build `latest.json` names, or undefined when nothing is published yet. */
export async function readLatest(store: ObjectStore): Promise<Latest | undefined> {
  const raw = await store.read(LATEST_KEY);
  return raw ? parseJson(raw, latestSchema, `${LATEST_KEY}`) : undefined;
}

/** A build's index, checked against the hash the pointer gave (when pulling `latest`). */
export async function readIndex(store: ObjectStore, buildId: string, expectedSha?: string): Promise<BuildIndex> {
  if (!isBuildId(buildId)) throw new BuildVerificationError(`not a build id: ${buildId}`);
  const raw = await store.read(indexKey(buildId));
  if (!raw) throw new BuildVerificationError(`build ${buildId} is not published in the data source`);
  if (expectedSha && sha256Of(raw) !== expectedSha)
    throw new BuildVerificationError(`the index of build ${buildId} does not match latest.json`);
  const index = parseJson(raw, buildIndexSchema, `index of build ${buildId}`);
  if (index.build_id !== buildId) throw new BuildVerificationError(`the index of build ${buildId} names build ${index.build_id}`);
  if (!index.files.some((f) => f.path === 'manifest.json')) throw new BuildVerificationError(`build ${buildId} has no manifest.json`);
  return index;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Pull temporaries left by a killed process (the ETL's own `.tmp-<pid>-` convention). */
async function removeStalePulls(buildsDir: string): Promise<void> {
  for (const e of await fsp.readdir(buildsDir).catch(() => [] as string[])) {
    const m = /^\.tmp-(\d+)-pull-/.exec(e);
    if (m && !alive(Number(m[1]))) await fsp.rm(path.join(buildsDir, e), { recursive: true, force: true });
  }
}

/** sha256 → a local file with those bytes, from the pulled builds already on disk. */
async function localBlobs(buildsDir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await fsp.readdir(buildsDir).catch(() => [] as string[])) {
    if (e.startsWith('.')) continue;
    const raw = await fsp.readFile(path.join(buildsDir, e, PULLED_MARKER)).catch(() => undefined);
    if (!raw) continue;
    const parsed = buildIndexSchema.safeParse(JSON.parse(raw.toString('utf8')));
    if (!parsed.success) continue;
    for (const f of parsed.data.files) if (!out.has(f.sha256)) out.set(f.sha256, path.join(buildsDir, e, f.path));
  }
  return out;
}

async function download(store: ObjectStore, file: { path: string; sha256: string; bytes: number }, to: string): Promise<void> {
  const hash = createHash('sha256');
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      hash.update(chunk);
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  await pipeline(await store.stream(blobKey(file.sha256)), count, fs.createWriteStream(to));
  const sha = hash.digest('hex');
  if (bytes !== file.bytes || sha !== file.sha256)
    throw new BuildVerificationError(
      `${file.path}: ${bytes !== file.bytes ? `${bytes} bytes, expected ${file.bytes}` : 'content does not match its SHA-256'}`,
    );
}

/** Is `dir` a complete copy of `index`? (every file's hash; used once for a build found on disk unmarked) */
async function matches(dir: string, index: BuildIndex): Promise<boolean> {
  for (const f of index.files) {
    const s = await sha256File(path.join(dir, f.path)).catch(() => undefined);
    if (!s || s.sha256 !== f.sha256 || s.bytes !== f.bytes) return false;
  }
  return true;
}

/**
 * Make `dataDir/builds/<id>` a verified copy of the published build `buildId` (default: the one
 * `latest.json` names). Does not touch `current`: the caller switches once the stores opened.
 */
export async function pullBuild(
  store: ObjectStore,
  dataDir: string,
  opts: { buildId?: string; concurrency?: number } = {},
): Promise<PulledBuild> {
  let buildId = opts.buildId;
  let expectedSha: string | undefined;
  if (!buildId) {
    const latest = await readLatest(store);
    if (!latest) throw new BuildVerificationError(`nothing is published in the data source yet (no latest.json)`);
    buildId = latest.build_id;
    expectedSha = latest.index_sha256;
  }
  const index = await readIndex(store, buildId, expectedSha);
  const buildsDir = path.join(dataDir, 'builds');
  const finalDir = path.join(buildsDir, buildId);
  const marked = await fsp.readFile(path.join(finalDir, PULLED_MARKER)).catch(() => undefined);
  if (marked && sha256Of(marked) === sha256Of(Buffer.from(`${JSON.stringify(index)}\n`)))
    return { buildId, dir: finalDir, downloaded: 0, downloadedBytes: 0, linked: 0 };
  if (fs.existsSync(finalDir)) {
    // Built here by the ETL (the publisher's own data directory), or marked by another index.
    if (!(await matches(finalDir, index)))
      throw new BuildVerificationError(
        `a local build ${buildId} exists and differs from the published one; move it away from DATA_DIR/builds`,
      );
    await fsp.writeFile(path.join(finalDir, PULLED_MARKER), `${JSON.stringify(index)}\n`);
    return { buildId, dir: finalDir, downloaded: 0, downloadedBytes: 0, linked: 0 };
  }

  await fsp.mkdir(buildsDir, { recursive: true });
  await removeStalePulls(buildsDir);
  const have = await localBlobs(buildsDir);
  const tmp = path.join(buildsDir, `.tmp-${process.pid}-pull-${buildId}-${randomBytes(3).toString('hex')}`);
  let downloaded = 0;
  let downloadedBytes = 0;
  let linked = 0;
  try {
    const dirs = new Set(index.files.map((f) => path.dirname(path.join(tmp, f.path))));
    for (const d of dirs) await fsp.mkdir(d, { recursive: true });
    let next = 0;
    let failed = false;
    const worker = async () => {
      while (next < index.files.length && !failed) {
        const f = index.files[next++]!;
        const to = path.join(tmp, f.path);
        const local = have.get(f.sha256);
        if (local) {
          // Linked, then read back: a local file damaged since it was pulled is downloaded again.
          const ok = await fsp
            .link(local, to)
            .then(() => sha256File(to))
            .then((s) => s.sha256 === f.sha256 && s.bytes === f.bytes)
            .catch(() => false);
          if (ok) {
            linked++;
            continue;
          }
          await fsp.rm(to, { force: true });
        }
        await download(store, f, to);
        downloaded++;
        downloadedBytes += f.bytes;
      }
    };
    // One failure stops every worker; the temporary directory is removed only once all have stopped.
    const settled = await Promise.allSettled(
      Array.from({ length: opts.concurrency ?? 4 }, () =>
        worker().catch((e: unknown) => {
          failed = true;
          throw e;
        }),
      ),
    );
    const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
    await fsp.writeFile(path.join(tmp, PULLED_MARKER), `${JSON.stringify(index)}\n`);
    await fsp.rename(tmp, finalDir);
  } catch (e) {
    await fsp.rm(tmp, { recursive: true, force: true });
    throw e;
  }
  return { buildId, dir: finalDir, downloaded, downloadedBytes, linked };
}

/** Point `dataDir/current` at a pulled build (atomic rename of a fresh symlink, as the ETL does). */
export async function makeCurrent(dataDir: string, buildId: string): Promise<void> {
  const tmpLink = path.join(dataDir, `.current-${process.pid}-${buildId}`);
  await fsp.rm(tmpLink, { force: true });
  await fsp.symlink(path.join('builds', buildId), tmpLink);
  await fsp.rename(tmpLink, path.join(dataDir, 'current'));
}

/** Remove pulled builds other than `keep` (oldest first past `count`). */
export async function prunePulled(dataDir: string, keep: string[], count = 2): Promise<void> {
  const buildsDir = path.join(dataDir, 'builds');
  const entries = (await fsp.readdir(buildsDir).catch(() => [] as string[])).filter(
    (e) => !e.startsWith('.') && fs.existsSync(path.join(buildsDir, e, PULLED_MARKER)),
  );
  const dated = await Promise.all(entries.map(async (e) => ({ e, t: (await fsp.stat(path.join(buildsDir, e))).mtimeMs })));
  dated.sort((a, b) => b.t - a.t);
  let kept = 0;
  for (const { e } of dated) {
    if (keep.includes(e) || kept < count) {
      kept++;
      continue;
    }
    await fsp.rm(path.join(buildsDir, e), { recursive: true, force: true });
  }
}
