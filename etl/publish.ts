// Making a finished build live: move it into builds/, then replace the `current` symlink with
// rename(2), which is atomic — a reader resolves either the old build or the new one, never a mix.
import fs from 'node:fs/promises';
import path from 'node:path';
import { currentLink } from '../src/store/data-dir.js';

export async function publishBuild(dataDir: string, tmpDir: string, buildId: string): Promise<string> {
  const finalDir = path.join(dataDir, 'builds', buildId);
  await fs.rename(tmpDir, finalDir);
  const tmpLink = path.join(dataDir, `.current-${process.pid}-${buildId}`);
  await fs.symlink(path.join('builds', buildId), tmpLink);
  await fs.rename(tmpLink, currentLink(dataDir));
  return finalDir;
}
