// Builds the browser front ends into dist/web/<app>/ (git-ignored) with esbuild: one minified
// ES module, one stylesheet and the HTML shell per app. Run by `npm start` (prestart), by the
// browser tests, and by `npm run build:web`. Prints the bundle sizes (raw and gzip).
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

export async function buildWeb(outDir = WEB_OUT_DIR): Promise<BundleSize[]> {
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
    for (const f of [`${app}.js`, `${app}.css`, 'index.html']) {
      const body = fs.readFileSync(path.join(out, f));
      sizes.push({ file: `${app}/${f}`, bytes: body.length, gzipBytes: gzipSync(body, { level: 9 }).length });
    }
  }
  fs.writeFileSync(path.join(outDir, 'sizes.json'), `${JSON.stringify(sizes, null, 2)}\n`);
  return sizes;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const sizes = await buildWeb();
  for (const s of sizes)
    process.stderr.write(`web: ${s.file} ${(s.bytes / 1024).toFixed(1)} KiB (${(s.gzipBytes / 1024).toFixed(1)} KiB gzip)\n`);
}
