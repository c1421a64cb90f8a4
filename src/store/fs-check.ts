// Checks that a configured path can be used, done before anything else touches it. Node 20's
// `mkdirSync(dir, { recursive: true })` loops forever under /proc (it never gets an ENOENT or
// EEXIST it can act on): the server then spun at ~30% CPU, logged nothing and ignored SIGTERM
// (the loop is synchronous). Creating the missing levels one at a time fails in microseconds
// with the real error instead.

import fs from 'node:fs';
import path from 'node:path';

/** A path setting that cannot be used; the message names the setting. */
export class PathSettingError extends Error {}

/** Make sure `dir` exists (creating missing levels) and is a writable directory. */
export function ensureDirectory(dir: string, setting: string, opts: { writable?: boolean } = {}): void {
  const target = path.resolve(dir);
  const missing: string[] = [];
  let cur = target;
  for (let depth = 0; depth < 128; depth++) {
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(cur);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
        throw new PathSettingError(`${setting}: cannot use ${target}: ${(e as Error).message}`);
    }
    if (st) {
      if (!st.isDirectory()) throw new PathSettingError(`${setting}: cannot use ${target}: ${cur} is not a directory`);
      break;
    }
    missing.unshift(cur);
    const up = path.dirname(cur);
    if (up === cur) break;
    cur = up;
  }
  for (const d of missing) {
    try {
      fs.mkdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new PathSettingError(`${setting}: cannot create directory ${d}: ${(e as Error).message}`);
    }
  }
  const mode = opts.writable === false ? fs.constants.R_OK | fs.constants.X_OK : fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK;
  try {
    fs.accessSync(target, mode);
  } catch (e) {
    throw new PathSettingError(
      `${setting}: directory ${target} is not ${opts.writable === false ? 'readable' : 'writable'}: ${(e as Error).message}`,
    );
  }
}

/** The parent directory of a file setting (DATABASE_PATH). */
export function ensureParentDirectory(file: string, setting: string): void {
  ensureDirectory(path.dirname(path.resolve(file)), setting);
}

/**
 * DATA_DIR at start: an existing path must be a readable directory; a missing one is created when
 * the server is to build into it (AUTO_BUILD_DATA), and is an error otherwise.
 */
export function checkDataDir(dir: string, autoBuild: boolean): void {
  const target = path.resolve(dir);
  if (!fs.existsSync(target) && !autoBuild)
    throw new PathSettingError(`DATA_DIR: ${target} does not exist (build it with \`npm run etl -- build\` or set AUTO_BUILD_DATA=true)`);
  ensureDirectory(target, 'DATA_DIR', { writable: autoBuild && !fs.existsSync(path.join(target, 'current')) });
}
