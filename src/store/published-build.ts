// The layout of published builds in an object store (written by `etl publish`, read by replicas
// started with DATA_SOURCE):
//
//   blobs/sha256/<hex>        every file of every build, stored once under the SHA-256 of its bytes
//   builds/<build-id>.json    the build's index: each path with its sha256 and size (immutable)
//   latest.json               { build_id, index_sha256 }: which build replicas follow, written last
//
// Files are content-addressed, so a build that changed a few steps uploads only their files and
// a replica downloads only those (the rest are linked from the build it already has). The pointer
// names the index's own SHA-256, so every byte a replica serves is checked against a hash it
// reached from `latest.json`. Nothing but the pointer is ever overwritten.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

export const INDEX_FORMAT = 'census-data-service/build-index@1';
export const LATEST_KEY = 'latest.json';
/** Written into a pulled build's directory once every file verified (not itself published). */
export const PULLED_MARKER = '.published.json';

const SHA256 = /^[0-9a-f]{64}$/;
const BUILD_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const REL_PATH = /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[^\\\0]+$/;

export const buildIndexSchema = z.object({
  format: z.literal(INDEX_FORMAT),
  build_id: z.string().regex(BUILD_ID),
  created_at: z.string(),
  synthetic: z.boolean(),
  bytes: z.number().int().nonnegative(),
  files: z.array(z.object({ path: z.string().regex(REL_PATH), sha256: z.string().regex(SHA256), bytes: z.number().int().nonnegative() })),
});
export type BuildIndex = z.infer<typeof buildIndexSchema>;

export const latestSchema = z.object({
  build_id: z.string().regex(BUILD_ID),
  index_sha256: z.string().regex(SHA256),
  published_at: z.string(),
});
export type Latest = z.infer<typeof latestSchema>;

export const blobKey = (sha256: string) => `blobs/sha256/${sha256}`;
export const indexKey = (buildId: string) => `builds/${buildId}.json`;
export const isBuildId = (s: string) => BUILD_ID.test(s);

export function sha256Of(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function sha256File(file: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Every regular file of a build directory, relative, sorted; dotfiles (local markers) are not part of it. */
export async function listBuildFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (rel: string) => {
    for (const e of await fsp.readdir(path.join(dir, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(r);
      else if (e.isFile()) out.push(r);
    }
  };
  await walk('');
  return out.sort();
}

/** The index of a local build directory: what publishing it means (deterministic: same build, same bytes). */
export async function indexBuild(dir: string, concurrency = 4): Promise<BuildIndex> {
  const manifest = JSON.parse(await fsp.readFile(path.join(dir, 'manifest.json'), 'utf8')) as {
    build_id: string;
    created_at: string;
    synthetic?: boolean;
  };
  const files = await listBuildFiles(dir);
  const sums = new Array<{ path: string; sha256: string; bytes: number }>(files.length);
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const i = next++;
      sums[i] = { path: files[i]!, ...(await sha256File(path.join(dir, files[i]!))) };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return {
    format: INDEX_FORMAT,
    build_id: manifest.build_id,
    created_at: manifest.created_at,
    synthetic: manifest.synthetic === true,
    bytes: sums.reduce((a, f) => a + f.bytes, 0),
    files: sums,
  };
}

export function serializeIndex(index: BuildIndex): Buffer {
  return Buffer.from(`${JSON.stringify(index, null, 1)}\n`);
}
