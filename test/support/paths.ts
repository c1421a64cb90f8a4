import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The real Census files every test reads (never copied into the repo). */
export const SHARED_CENSUS = path.resolve(process.env.CENSUS_SOURCE_DIR ?? path.join(REPO_ROOT, '../shared/census'));
