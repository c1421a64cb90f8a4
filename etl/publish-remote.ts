// `etl publish --to <dir|s3://bucket/prefix>`: upload a finished build as an immutable,
// content-addressed set of objects (layout in src/store/published-build.ts). Order matters:
// blobs first, then the build's index, then the `latest` pointer, so a replica following the
// pointer never meets a build whose files are not all there. Publishing the same build again
// uploads nothing once every blob already there has been read and found to hash to its key (a
// damaged or tampered blob is uploaded again); a build id already published with other content
// is refused.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { resolveCurrentBuild } from '../src/store/data-dir.js';
import { openObjectStore, type ObjectStore } from '../src/store/object-store/index.js';
import {
  blobKey,
  indexBuild,
  indexKey,
  isBuildId,
  LATEST_KEY,
  latestSchema,
  serializeIndex,
  sha256Of,
  type Latest,
} from '../src/store/published-build.js';
import type { StepLogger } from './step.js';

export interface PublishOptions {
  dataDir: string;
  /** A build id under `dataDir/builds`; default the live one (`current`). */
  buildId?: string;
  to: string;
  /** Upload without moving `latest` (stage a build; replicas pinned with DATA_BUILD can use it). */
  setLatest?: boolean;
  concurrency?: number;
  env?: NodeJS.ProcessEnv;
  log?: Pick<StepLogger, 'info'>;
  /** An already opened target (tests); default: opened from `to`. */
  store?: ObjectStore;
}

export interface PublishSummary {
  buildId: string;
  files: number;
  bytes: number;
  /** Blobs uploaded now (the rest were already in the target). */
  uploaded: number;
  uploadedBytes: number;
  /** Of those, blobs that were in the target with bytes that did not hash to their key. */
  replaced: number;
  indexWritten: boolean;
  latestMoved: boolean;
  seconds: number;
}

export class PublishError extends Error {}

function buildDirOf(dataDir: string, buildId: string | undefined): string {
  if (buildId === undefined) {
    const dir = resolveCurrentBuild(dataDir);
    if (!dir) throw new PublishError(`no live build in ${dataDir} (run \`npm run etl\` first, or name one with --build)`);
    return dir;
  }
  if (!isBuildId(buildId)) throw new PublishError(`not a build id: ${buildId}`);
  const dir = path.join(dataDir, 'builds', buildId);
  if (!fs.existsSync(path.join(dir, 'manifest.json'))) throw new PublishError(`no complete build ${buildId} in ${dataDir}/builds`);
  return dir;
}

/** Whether the blob under `sha`'s key hashes to it (read whole: what a replica pulling it would check). */
async function blobHolds(store: ObjectStore, sha: string): Promise<boolean> {
  const hash = createHash('sha256');
  for await (const chunk of await store.stream(blobKey(sha))) hash.update(chunk as Buffer);
  return hash.digest('hex') === sha;
}

export async function publishToStore(opts: PublishOptions): Promise<PublishSummary> {
  const started = Date.now();
  const log = opts.log ?? { info: () => {} };
  const dir = buildDirOf(path.resolve(opts.dataDir), opts.buildId);
  const store = opts.store ?? (await openObjectStore(opts.to, opts.env));
  const index = await indexBuild(dir);
  if (index.build_id !== path.basename(dir)) throw new PublishError(`${dir}: manifest names build ${index.build_id}`);
  log.info(`publish: build ${index.build_id}, ${index.files.length} files, ${(index.bytes / 1e6).toFixed(1)} MB → ${store.url}`);

  // 1. Blobs, each once (a build may hold the same bytes under two paths).
  const unique = new Map<string, { file: string; bytes: number }>();
  for (const f of index.files) if (!unique.has(f.sha256)) unique.set(f.sha256, { file: path.join(dir, f.path), bytes: f.bytes });
  const todo = [...unique.entries()];
  let uploaded = 0;
  let uploadedBytes = 0;
  let replaced = 0;
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < todo.length && !failed) {
      const [sha, { file, bytes }] = todo[next++]!;
      const have = await store.stat(blobKey(sha));
      // A blob already there is trusted only once its bytes hash to its key: one of the wrong size
      // (an interrupted copy by another tool) or with other bytes (damaged, tampered with) is
      // replaced, since the key says what it must hold.
      if (have && have.bytes === bytes && (await blobHolds(store, sha))) continue;
      if (have) {
        replaced++;
        log.info(`publish: blob ${sha.slice(0, 12)}… in the target does not hash to its key; uploading it again`);
      }
      await store.writeFile(blobKey(sha), file, bytes);
      uploaded++;
      uploadedBytes += bytes;
    }
  };
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

  // 2. The index: immutable once written.
  const body = serializeIndex(index);
  const indexSha = sha256Of(body);
  const existing = await store.read(indexKey(index.build_id));
  let indexWritten = false;
  if (existing) {
    if (sha256Of(existing) !== indexSha)
      throw new PublishError(`build ${index.build_id} is already published in ${store.url} with different content; builds are immutable`);
  } else {
    await store.write(indexKey(index.build_id), body);
    indexWritten = true;
  }

  // 3. The pointer, last.
  let latestMoved = false;
  if (opts.setLatest !== false) {
    const raw = await store.read(LATEST_KEY);
    const parsed = raw ? latestSchema.safeParse(JSON.parse(raw.toString('utf8'))) : undefined;
    const current = parsed?.success ? parsed.data : undefined;
    if (!current || current.build_id !== index.build_id || current.index_sha256 !== indexSha) {
      const latest: Latest = { build_id: index.build_id, index_sha256: indexSha, published_at: new Date().toISOString() };
      await store.write(LATEST_KEY, Buffer.from(`${JSON.stringify(latest, null, 1)}\n`));
      latestMoved = true;
    }
  }
  return {
    buildId: index.build_id,
    files: index.files.length,
    bytes: index.bytes,
    uploaded,
    uploadedBytes,
    replaced,
    indexWritten,
    latestMoved,
    seconds: (Date.now() - started) / 1000,
  };
}
