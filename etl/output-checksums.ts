// The checksum of every file a build holds, recorded in its manifest (`files`): the server checks
// each file it reads against it (src/store/file-integrity.ts), so a damaged file is refused
// instead of answering wrong numbers. A step whose outputs were hard-linked from the previous
// build shares that build's bytes: when the previous manifest recorded them, they must still
// match, or the new build would record a damaged file as correct.
import path from 'node:path';
import type { Manifest } from '../src/store/data-dir.js';
import { listBuildFiles, sha256File } from '../src/store/published-build.js';

export type BuildChecksums = NonNullable<Manifest['files']>;

/**
 * SHA-256 and size of every file under `dir` but manifest.json itself (and dotfiles), by relative
 * path, sorted. `reused`: the output roots (files or directories) linked from the build whose
 * checksums are `previous`.
 */
export async function outputChecksums(
  dir: string,
  previous: BuildChecksums | undefined,
  reused: readonly string[],
  concurrency = 4,
): Promise<BuildChecksums> {
  const files = (await listBuildFiles(dir)).filter((f) => f !== 'manifest.json');
  const out: BuildChecksums = {};
  const isReused = (rel: string) => reused.some((r) => rel === r || rel.startsWith(`${r}/`));
  let next = 0;
  const worker = async () => {
    while (next < files.length) {
      const rel = files[next++]!;
      const sum = await sha256File(path.join(dir, rel));
      const before = previous?.[rel];
      if (before && isReused(rel) && before.sha256 !== sum.sha256)
        throw new Error(`${rel} of the previous build differs from its recorded checksum (damaged); rebuild with --force`);
      out[rel] = sum;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  // Sorted, so the manifest does not depend on the order the workers finished in.
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)));
}
