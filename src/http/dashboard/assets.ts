// The dashboard's built front end (npm run build:web → dist/web/, git-ignored). Files are read
// once and kept in memory: the whole bundle is a few tens of kilobytes.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const WEB_DIST_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../dist/web');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

export interface Asset {
  body: Buffer;
  type: string;
  /** Strong ETag: the body's hash, so a revalidation (no-cache) of an unchanged file is a 304. */
  etag: string;
}

export class AssetStore {
  private cache = new Map<string, Asset | null>();
  constructor(private readonly dir = WEB_DIST_DIR) {}

  /** A file of the build by its name inside `app` (dashboard, explore); null when absent. */
  get(app: string, name: string): Asset | null {
    if (!/^[a-z0-9][a-z0-9._-]*$/i.test(name) || !/^[a-z]+$/.test(app)) return null;
    const key = `${app}/${name}`;
    if (!this.cache.has(key)) {
      const file = path.join(this.dir, app, name);
      const type = TYPES[path.extname(name)];
      const body = type && fs.existsSync(file) ? fs.readFileSync(file) : null;
      const etag = body ? `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` : '';
      this.cache.set(key, body && type ? { body, type, etag } : null);
    }
    return this.cache.get(key) ?? null;
  }
}
