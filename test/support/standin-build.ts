// The `etl build --online` command line of a test against the census.gov stand-in
// (census-standin.ts): the stand-in's two bases, a selection, and a working directory holding the
// download cache (`cache/`) and the data directory (`data/`). One place for the flags, so the
// stand-in tests say only what their selection is.
import fs from 'node:fs/promises';
import path from 'node:path';
import { SHARED_CENSUS } from './paths.js';

/** What a test selects (the flags of docs/etl-online.md), and where the run keeps its files. */
export interface StandinSelection {
  /** Holds `cache/` (--cache-dir) and `data/` (--data-dir). */
  dir: string;
  /** --fallback-source: an empty directory, a tree of links into ../shared, or ../shared itself. */
  fallback: string;
  /** --datasets; left to the CLI's default (acs5) when absent. */
  datasets?: string[];
  vintages: number[];
  /** --levels: a list, or 'all'. */
  levels: string[] | 'all';
  states?: string[];
  /** --tables (a table → line count record gives its keys), or --all-tables. */
  tables: string[] | Record<string, number> | 'all';
  /** --values-source. */
  valuesSource?: 'summary-file' | 'api' | 'auto';
  /** More flags, after the selection (e.g. --no-shapes, --dry-run). */
  extra?: string[];
}

/** `etl/cli.ts build --online …`: the arguments for tsx (or node --import tsx), from the repo root. */
export function standinBuildArgs(standin: { apiBase: string; filesBase: string }, s: StandinSelection): string[] {
  const list = (xs: readonly (string | number)[]) => xs.join(',');
  const tables = s.tables === 'all' ? ['--all-tables'] : ['--tables', list(Array.isArray(s.tables) ? s.tables : Object.keys(s.tables))];
  return [
    'etl/cli.ts',
    'build',
    '--online',
    ...(s.valuesSource ? ['--values-source', s.valuesSource] : []),
    '--api-base',
    standin.apiBase,
    '--files-base',
    standin.filesBase,
    ...(s.datasets ? ['--datasets', list(s.datasets)] : []),
    '--vintages',
    list(s.vintages),
    '--levels',
    s.levels === 'all' ? 'all' : list(s.levels),
    ...(s.states ? ['--states', list(s.states)] : []),
    ...tables,
    '--cache-dir',
    path.join(s.dir, 'cache'),
    '--data-dir',
    path.join(s.dir, 'data'),
    '--fallback-source',
    s.fallback,
    ...(s.extra ?? []),
  ];
}

/** Hard links of a tree (a copy where a link cannot be made: another file system). */
async function linkTree(from: string, to: string): Promise<void> {
  await fs.mkdir(to, { recursive: true });
  for (const e of await fs.readdir(from, { withFileTypes: true })) {
    const [a, b] = [path.join(from, e.name), path.join(to, e.name)];
    if (e.isDirectory()) await linkTree(a, b);
    else await fs.link(a, b).catch(() => fs.copyFile(a, b));
  }
}

/**
 * A working directory for a whole `etl build --online` run: `seed` (the suite's test build) as
 * the previous build of `dir/data`, so the CLI reuses the steps whose inputs are the same and
 * builds only observations and geographies again, and `dir/fallback` linking ../shared's
 * reference trees (geo, boundaries, metadata, geocode). Returns the fallback's path.
 */
export async function seededWorkDir(dir: string, seed: string): Promise<string> {
  await linkTree(seed, path.join(dir, 'data', 'builds', path.basename(seed)));
  await fs.symlink(path.join('builds', path.basename(seed)), path.join(dir, 'data', 'current'));
  const fallback = path.join(dir, 'fallback');
  await fs.mkdir(fallback);
  for (const d of ['geo', 'boundaries', 'metadata', 'geocode']) await fs.symlink(path.join(SHARED_CENSUS, d), path.join(fallback, d));
  return fallback;
}
