// Files online mode cannot download (derived crosswalks, third-party conversions, metadata in
// Census Reporter's format) are linked from a local source tree into the cache directory, so
// the build still sees one complete tree. API values are never filled this way: a value file
// missing from the cache is a failed or unplanned download, and must show as such.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { StepLogger } from '../step.js';

/**
 * `values`: also link the fallback's API value files, except the paths listed (what a selection
 * planned: downloaded, answered 204, or failed), so a selection adds to the fallback's data.
 */
export async function fillFromFallback(opts: {
  cacheDir: string;
  fallbackDir: string;
  log: StepLogger;
  values?: { except: ReadonlySet<string> };
}): Promise<{ linked: string[] }> {
  const root = path.resolve(opts.fallbackDir);
  try {
    await fs.access(root);
  } catch {
    throw new Error(`fallback source ${root} does not exist (set --fallback-source)`);
  }
  const linked: string[] = [];
  const walk = async (rel: string): Promise<void> => {
    for (const e of await fs.readdir(path.join(root, rel), { withFileTypes: true })) {
      const r = path.join(rel, e.name);
      if (e.isDirectory()) {
        if (r !== 'api' || opts.values) await walk(r);
        continue;
      }
      if (opts.values?.except.has(r.split(path.sep).join('/'))) continue;
      const target = path.join(opts.cacheDir, r);
      try {
        await fs.lstat(target);
        continue; // downloaded (or linked before): the cache wins
      } catch {
        /* absent: link it */
      }
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.symlink(path.join(root, r), target);
      linked.push(r);
    }
  };
  await walk('');
  if (linked.length > 0) opts.log.info(`online: ${linked.length} files not downloadable linked from ${root}`);
  return { linked };
}
