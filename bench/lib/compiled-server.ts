// The service as the container image runs it (Dockerfile): every module of src/ and etl/
// transpiled on its own by esbuild into the same layout, run by plain `node src/server.js`, so no
// TypeScript is compiled at start. `tsx src/server.ts` (npm start) also transpiles, resolves and
// source-maps each of ~1,800 modules at every start, through its loader thread: about 0.9 s of
// CPU more on this machine, and several seconds more under load, where every module costs a round
// trip between two threads. The national start-up target is for a deployed server.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';

function tsFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .flatMap((e) => (e.isFile() && e.name.endsWith('.ts') ? [path.join(e.parentPath, e.name)] : []));
}

/**
 * Compile the repository's server into a temporary directory laid out as the image's /app (the
 * modules, with node_modules, package.json, catalog/ and dist/ linked), and return it with the
 * entry point; `remove()` deletes it.
 */
export async function compiledServer(repo = process.cwd()): Promise<{ dir: string; entry: string; remove(): void }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-compiled-server-'));
  await build({
    entryPoints: [...tsFiles(path.join(repo, 'src')), ...tsFiles(path.join(repo, 'etl'))],
    outdir: dir,
    outbase: repo,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
  });
  for (const name of ['node_modules', 'package.json', 'catalog', 'dist']) fs.symlinkSync(path.join(repo, name), path.join(dir, name));
  return { dir, entry: path.join(dir, 'src', 'server.js'), remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
