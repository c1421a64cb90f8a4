// Builds the browser front ends into dist/web/<app>/ (git-ignored) with esbuild: one minified
// ES module, one stylesheet and the HTML shell per app. Run by `npm start` (prestart), by the
// browser tests, and by `npm run build:web`. Prints the bundle sizes (raw and gzip).
//
// Several processes may build at once (two `npm start`s from one checkout, parallel test files):
// each builds into a directory of its own and renames every file into place, so a reader (or a
// concurrent builder) only ever sees whole files. A build whose inputs (everything under web/ and
// the lockfile) are unchanged since the last one is skipped.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ROOT = path.dirname(fileURLToPath(import.meta.url));
export const WEB_OUT_DIR = path.resolve(ROOT, '../dist/web');
const APPS = ['dashboard', 'explore', 'profile'] as const;

export interface BundleSize {
  file: string;
  bytes: number;
  gzipBytes: number;
}

const STAMP_FILE = 'build-stamp.txt';
const SIZES_FILE = 'sizes.json';

/** A digest of every input of the build: the files under web/ and the lockfile (esbuild's and preact's versions). */
function inputsDigest(): string {
  const hash = createHash('sha256');
  const add = (file: string) => hash.update(`${path.relative(ROOT, file)}\0`).update(fs.readFileSync(file));
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) add(full);
    }
  };
  walk(ROOT);
  add(path.join(ROOT, '../package-lock.json'));
  return hash.digest('hex');
}

function outputsOf(app: string): string[] {
  return [`${app}.js`, `${app}.css`, 'index.html'];
}

/** The sizes of the last build when it was made from these inputs and every output is still there. */
function upToDate(outDir: string, digest: string): BundleSize[] | undefined {
  try {
    if (fs.readFileSync(path.join(outDir, STAMP_FILE), 'utf8') !== digest) return undefined;
    if (!APPS.every((app) => outputsOf(app).every((f) => fs.existsSync(path.join(outDir, app, f))))) return undefined;
    return JSON.parse(fs.readFileSync(path.join(outDir, SIZES_FILE), 'utf8')) as BundleSize[];
  } catch {
    return undefined;
  }
}

/** Writes a file whole: to a temporary name beside it, then renamed over the old one. */
function writeWhole(file: string, body: string): void {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}`;
  fs.writeFileSync(tmp, body);
  fs.renameSync(tmp, file);
}

export async function buildWeb(outDir = WEB_OUT_DIR, { force = false }: { force?: boolean } = {}): Promise<BundleSize[]> {
  const digest = inputsDigest();
  const kept = force ? undefined : upToDate(outDir, digest);
  if (kept) return kept;
  fs.mkdirSync(outDir, { recursive: true });
  // Built beside the output (same file system, so renames are atomic), then moved in file by file.
  const work = fs.mkdtempSync(path.join(outDir, '.build-'));
  try {
    const sizes = await buildInto(work);
    for (const app of APPS) {
      fs.mkdirSync(path.join(outDir, app), { recursive: true });
      for (const f of outputsOf(app)) fs.renameSync(path.join(work, app, f), path.join(outDir, app, f));
    }
    writeWhole(path.join(outDir, SIZES_FILE), `${JSON.stringify(sizes, null, 2)}\n`);
    writeWhole(path.join(outDir, STAMP_FILE), digest);
    return sizes;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

async function buildInto(outDir: string): Promise<BundleSize[]> {
  const sizes: BundleSize[] = [];
  for (const app of APPS) {
    const out = path.join(outDir, app);
    fs.mkdirSync(out, { recursive: true });
    await build({
      entryPoints: { [app]: path.join(ROOT, app, 'main.tsx'), [`${app}-css`]: path.join(ROOT, app, 'styles.css') },
      outdir: out,
      entryNames: '[name]',
      bundle: true,
      minify: true,
      format: 'esm',
      target: ['chrome111', 'firefox111', 'safari16.4'],
      jsx: 'automatic',
      jsxImportSource: 'preact',
      legalComments: 'none',
      logLevel: 'warning',
    });
    fs.renameSync(path.join(out, `${app}-css.css`), path.join(out, `${app}.css`));
    fs.copyFileSync(path.join(ROOT, app, 'index.html'), path.join(out, 'index.html'));
    for (const f of outputsOf(app)) {
      const body = fs.readFileSync(path.join(out, f));
      sizes.push({ file: `${app}/${f}`, bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length });
    }
  }
  return sizes;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const sizes = await buildWeb(WEB_OUT_DIR, { force: process.argv.includes('--force') });
  for (const s of sizes)
    process.stderr.write(`web: ${s.file} ${(s.bytes / 1024).toFixed(1)} KiB (${(s.gzipBytes / 1024).toFixed(1)} KiB gzip)\n`);
}
