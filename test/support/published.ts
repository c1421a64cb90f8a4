// A publisher's data directory for tests of published builds: the prebuilt test build (A) and a
// "newer" build B with the same files under another id (hard links, a rewritten manifest), so
// publishing B moves one new file and pulling it links the rest — which keeps those tests fast.
import fs from 'node:fs';
import path from 'node:path';
import { readManifest, sealManifest } from '../../src/store/data-dir.js';
import { REPO_ROOT } from './paths.js';

/** A scratch directory under .cache (same file system as the test build, so it can be hard-linked). */
export const scratchDir = (): string => fs.mkdtempSync(path.join(REPO_ROOT, '.cache', 'publish-test-'));

/** Copy a tree by hard links (dotfiles too when `dots`). */
export function linkTree(from: string, to: string, dots = false): void {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    if (e.name.startsWith('.') && !dots) continue;
    const s = path.join(from, e.name);
    const d = path.join(to, e.name);
    if (e.isDirectory()) linkTree(s, d, dots);
    else fs.linkSync(s, d);
  }
}

export interface PublisherDir {
  dataDir: string;
  /** The test build's id (live: `current` points to it). */
  a: string;
  /** The same files under a newer id. */
  b: string;
  remove(): void;
}

export function publisherDir(testBuild: string): PublisherDir {
  const dataDir = scratchDir();
  const a = path.basename(testBuild);
  const b = `${a}-next`;
  for (const id of [a, b]) linkTree(testBuild, path.join(dataDir, 'builds', id));
  const mb = path.join(dataDir, 'builds', b, 'manifest.json');
  const manifest = readManifest(testBuild);
  fs.rmSync(mb);
  fs.writeFileSync(mb, sealManifest({ ...manifest, build_id: b, created_at: new Date().toISOString() }));
  fs.symlinkSync(path.join('builds', a), path.join(dataDir, 'current'));
  return { dataDir, a, b, remove: () => fs.rmSync(dataDir, { recursive: true, force: true }) };
}
