// The fidelity check through the public API: sample published cells from the raw Census files
// under ../shared/census/api, ask for each by its census code over HTTP, and compare with the raw
// file. The expectation is computed here from the published strings alone, independently of the
// ETL's code: a number must come back exactly, a special value as null with its annotation.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface SampledCell {
  file: string;
  dataset: string;
  vintage: number;
  geo: string;
  code: string;
  /** The published estimate and MOE strings (null where the file has none). */
  e: string | null;
  m: string | null | undefined;
  ea: string | null | undefined;
  ma: string | null | undefined;
}

const FILE = /^(\d{4})\/acs\/(acs1|acs5)\/(nation|state|county|metro)\/([A-Z0-9]+)\.json\.gz$/;
const JAM_E: Record<string, string> = {
  '-666666666': 'not_computable',
  '-999999999': 'insufficient_sample',
  '-888888888': 'not_applicable',
  '-222222222': 'moe_not_computable',
  '-333333333': 'moe_open_ended',
  '-555555555': 'controlled',
};
const JAM_M: Record<string, string> = {
  '-555555555': 'controlled',
  '-222222222': 'moe_not_computable',
  '-333333333': 'moe_open_ended',
  '-999999999': 'insufficient_sample',
  '-888888888': 'not_applicable',
  '-666666666': 'not_computable',
};
/** Symbols that say "no number here" (docs/annotations.md): the number beside them is not served. */
const NO_VALUE_SYMBOL: Record<string, string> = {
  '*****': 'controlled',
  '***': 'moe_open_ended',
  '**': 'moe_not_computable',
  '-': 'not_computable',
  N: 'insufficient_sample',
  '(X)': 'not_applicable',
};

export function listSourceFiles(apiDir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const rel = path.relative(apiDir, p).split(path.sep).join('/');
        if (FILE.test(rel)) out.push(rel);
      }
    }
  };
  walk(apiDir);
  return out.sort();
}

/** A deterministic PRNG (mulberry32), so a failing sample can be replayed with its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function geoKeyOf(header: string[], row: (string | null)[]): string {
  const col = (n: string) => row[header.indexOf(n)]!;
  if (header.includes('us')) return 'nation:1';
  if (header.includes('county')) return `county:${col('state')}${col('county')}`;
  if (header.includes('state')) return `state:${col('state')}`;
  return `metro:${col('metropolitan statistical area/micropolitan statistical area')}`;
}

/** Up to `perFile` random estimate cells of one source file. */
export function sampleFile(apiDir: string, rel: string, perFile: number, random: () => number): SampledCell[] {
  const [, vintage, dataset] = FILE.exec(rel)!;
  const rows = JSON.parse(gunzipSync(fs.readFileSync(path.join(apiDir, rel))).toString('utf8')) as (string | null)[][];
  const header = rows[0] as string[];
  const estimates = header.map((h, i) => [h, i] as const).filter(([h]) => /^[BC]\d{5}[A-Z]{0,4}_\d{3}E$/.test(h));
  const out: SampledCell[] = [];
  for (let k = 0; k < perFile && rows.length > 1 && estimates.length > 0; k++) {
    const row = rows[1 + Math.floor(random() * (rows.length - 1))]!;
    const [code, i] = estimates[Math.floor(random() * estimates.length)]!;
    const at = (name: string) => (header.includes(name) ? (row[header.indexOf(name)] ?? null) : undefined);
    out.push({
      file: rel,
      dataset: dataset!,
      vintage: Number(vintage),
      geo: geoKeyOf(header, row),
      code,
      e: row[i] ?? null,
      m: at(code.replace(/E$/, 'M')),
      ea: at(`${code}A`),
      ma: at(code.replace(/E$/, 'MA')),
    });
  }
  return out;
}

export interface Expected {
  estimate: number | null;
  estimate_code: string | null;
  moe: number | null;
  moe_code: string | null;
}

function expectOne(
  raw: string | null | undefined,
  symbol: string | null | undefined,
  jams: Record<string, string>,
  hasAnnotations: boolean,
): { value: number | null; code: string | null } {
  if (raw === undefined) return { value: null, code: 'missing_in_source' }; // the file has no such column
  if (raw === null) return { value: null, code: hasAnnotations ? null : 'missing_in_source' };
  const n = Number(raw);
  const jam = jams[String(Math.trunc(n))];
  if (jam && Number.isInteger(n)) return { value: null, code: jam };
  if (symbol && NO_VALUE_SYMBOL[symbol.trim()]) return { value: null, code: NO_VALUE_SYMBOL[symbol.trim()]! };
  return { value: n, code: null };
}

/**
 * What the API must answer for a sampled cell. A row null in every column of a file that has
 * annotation columns is the API's "not tabulated here": `not_published`.
 */
export function expected(c: SampledCell): Expected {
  const hasAnnotations = c.ea !== undefined;
  if (hasAnnotations && c.e === null && (c.m === null || c.m === undefined) && !c.ea && !c.ma) {
    return { estimate: null, estimate_code: 'not_published', moe: null, moe_code: 'not_published' };
  }
  const e = expectOne(c.e, c.ea, JAM_E, hasAnnotations);
  const m = expectOne(c.m, c.ma, JAM_M, hasAnnotations);
  return { estimate: e.value, estimate_code: e.code, moe: m.value, moe_code: m.code };
}

export interface ServedCell {
  estimate: number | null;
  moe_numeric: number | null;
  estimate_annotation: { code: string } | null;
  moe_annotation: { code: string } | null;
}

/** Differences between what was served and what was published (empty: exact). */
export function compareCell(c: SampledCell, served: ServedCell | undefined): string[] {
  if (!served) return ['not served'];
  const x = expected(c);
  const problems: string[] = [];
  if (served.estimate !== x.estimate) problems.push(`estimate ${served.estimate} ≠ published ${c.e}`);
  if (x.estimate === null && !served.estimate_annotation) problems.push('null estimate without annotation');
  if (x.estimate_code && x.estimate_code !== 'missing_in_source' && served.estimate_annotation?.code !== x.estimate_code) {
    problems.push(`estimate annotation ${served.estimate_annotation?.code} ≠ ${x.estimate_code}`);
  }
  if (served.moe_numeric !== x.moe) problems.push(`moe ${served.moe_numeric} ≠ published ${c.m}`);
  if (x.moe === null && !served.moe_annotation) problems.push('null MOE without annotation');
  if (x.moe_code && x.moe_code !== 'missing_in_source' && served.moe_annotation?.code !== x.moe_code) {
    problems.push(`moe annotation ${served.moe_annotation?.code} ≠ ${x.moe_code}`);
  }
  for (const v of [served.estimate, served.moe_numeric]) if (v !== null && v <= -100_000_000) problems.push(`jam value ${v} leaked`);
  return problems;
}

export interface FidelityReport {
  files: number;
  cells: number;
  exact: number;
  mismatches: { cell: SampledCell; problems: string[] }[];
  jamLeaks: number;
  statuses: Record<string, number>;
  requests: number;
}

/**
 * Ask every sampled cell through `get` (an HTTP GET returning status and JSON), grouping the
 * cells of one file and geography into one request of at most 50 codes.
 */
export async function checkCells(
  cells: SampledCell[],
  get: (url: string) => Promise<{ status: number; body: unknown }>,
  files: number,
): Promise<FidelityReport> {
  const groups = new Map<string, SampledCell[]>();
  for (const c of cells) {
    const k = `${c.dataset}|${c.vintage}|${c.geo}`;
    const g = groups.get(k);
    if (g) g.push(c);
    else groups.set(k, [c]);
  }
  const report: FidelityReport = { files, cells: cells.length, exact: 0, mismatches: [], jamLeaks: 0, statuses: {}, requests: 0 };
  for (const group of groups.values()) {
    const codes = [...new Set(group.map((c) => c.code))];
    for (let i = 0; i < codes.length; i += 50) {
      const batch = codes.slice(i, i + 50);
      const { dataset, vintage, geo } = group[0]!;
      const res = await get(`/v1/data?variables=${batch.join(',')}&geo=${encodeURIComponent(geo)}&dataset=${dataset}&vintage=${vintage}`);
      report.requests++;
      report.statuses[res.status] = (report.statuses[res.status] ?? 0) + 1;
      const served = new Map<string, ServedCell>();
      if (res.status === 200) for (const c of (res.body as { data: (ServedCell & { variable: string })[] }).data) served.set(c.variable, c);
      for (const c of group.filter((x) => batch.includes(x.code))) {
        const problems =
          res.status === 200 ? compareCell(c, served.get(c.code)) : [`HTTP ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`];
        if (problems.length === 0) report.exact++;
        else report.mismatches.push({ cell: c, problems });
        if (problems.some((p) => p.includes('leaked'))) report.jamLeaks++;
      }
    }
  }
  return report;
}
