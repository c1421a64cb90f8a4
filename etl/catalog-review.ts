// `npm run catalog:review [-- --source <census dir>]`: the comparability review sheet of the
// catalog, printed as Markdown (docs/catalog.md keeps the reviewed copy).
//
// For every vintage the compiled catalog withholds (not_comparable), and every vintage it serves
// although a code's label differs from the reference under the fixed normalisations alone
// (released by a reviewed wording or by the sum rule), it lists the code, the Census Reporter
// shell label of that vintage, the Bureau's verbatim API label (acs1 2005–2018), the reference
// label, and the published nation and California values before and after the change, so a reviewer can check
// each judgement against the Bureau's own files rather than against the shells only.
import fs from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Command, Option } from 'commander';
import { parse } from 'csv-parse/sync';
import { componentCodes, parseFormula } from '../src/domain/formula.js';
import { Comparator, sameLabel } from './steps/catalog/comparability.js';
import { compileCatalog } from './steps/catalog/compile.js';
import {
  API_LABEL_VINTAGES,
  apiLabelFile,
  columnIdToCode,
  loadCodeVintages,
  SPEC_VINTAGES,
  tableOf,
  type Dataset,
} from './steps/catalog/metadata.js';
import { codesOf, readCatalogSource } from './steps/catalog/source.js';
import { REPO_CATALOG_DIR } from './steps/catalog.js';

const program = new Command()
  .addOption(new Option('-s, --source <dir>', 'census source tree').env('CENSUS_SOURCE_DIR').default('../shared/census'))
  .parse();
const sourceDir = path.resolve(program.opts<{ source: string }>().source);

const gz = (rel: string): string | undefined => {
  const p = path.join(sourceDir, rel);
  return fs.existsSync(p) ? gunzipSync(fs.readFileSync(p)).toString('utf8') : undefined;
};

/** Census Reporter shell label of one code (titles joined up the parent chain), or undefined. */
const shellCache = new Map<string, Map<string, Record<string, string>>>();
function shellLabel(d: Dataset, v: number, code: string): string | undefined {
  const key = `${d}:${v}`;
  if (!shellCache.has(key)) {
    const text = gz(`metadata/${d}/${v}/census_column_metadata.csv.gz`);
    const byId = new Map<string, Record<string, string>>();
    if (text) for (const r of parse(text, { columns: true }) as Record<string, string>[]) if (r.column_id) byId.set(r.column_id, r);
    shellCache.set(key, byId);
  }
  const byId = shellCache.get(key)!;
  const row = [...byId.values()].find((r) => /^\d{3}$/.test(r.column_id!.slice(-3)) && columnIdToCode(r.column_id!) === code);
  if (!row) return undefined;
  const parts: string[] = [];
  for (let cur: Record<string, string> | undefined = row, g = 0; cur && g < 20; g++) {
    parts.unshift(cur.column_title!.trim());
    cur = cur.parent_column_id ? byId.get(cur.parent_column_id) : undefined;
  }
  return parts.join('!!');
}

const apiCache = new Map<number, Map<string, string>>();
function apiLabel(v: number, code: string): string | undefined {
  if (!API_LABEL_VINTAGES.includes(v)) return undefined;
  if (!apiCache.has(v)) {
    const text = gz(apiLabelFile(v));
    const m = new Map<string, string>();
    if (text) for (const r of parse(text, { columns: true }) as Record<string, string>[]) m.set(r.VARIABLE!, r.LABEL!);
    apiCache.set(v, m);
  }
  return apiCache.get(v)!.get(code);
}

/** The published acs1 estimate of a code for the nation or one state (README §1a), as written. */
const fileCache = new Map<string, (string | null)[][] | undefined>();
function published(v: number, level: 'nation' | 'state', code: string, state = '06'): string | undefined {
  const rel = `api/${v}/acs/acs1/${level}/${tableOf(code)}.json.gz`;
  if (!fileCache.has(rel)) {
    const text = gz(rel);
    fileCache.set(rel, text ? (JSON.parse(text) as (string | null)[][]) : undefined);
  }
  const rows = fileCache.get(rel);
  if (!rows) return undefined;
  const head = rows[0]!;
  const i = head.indexOf(code);
  const row = level === 'nation' ? rows[1] : rows.slice(1).find((r) => r[head.indexOf('state')] === state);
  return i < 0 || !row ? undefined : (row[i] ?? 'null');
}

/** Published values of the code at the withheld vintages and the nearest vintages with files. */
function around(d: Dataset, vintages: number[], code: string, level: 'nation' | 'state'): string {
  if (d !== 'acs1') return '—';
  const has = (y: number): boolean => published(y, level, code) !== undefined;
  const first = Math.min(...vintages);
  const last = Math.max(...vintages);
  const before = SPEC_VINTAGES.acs1.filter((y) => y < first && has(y)).at(-1);
  const after = SPEC_VINTAGES.acs1.find((y) => y > last && has(y));
  const at = [first, last].filter((y, i, a) => a.indexOf(y) === i && has(y));
  const cells = [before, ...at, after].filter((y): y is number => y !== undefined).map((y) => `${y}: ${published(y, level, code)}`);
  return cells.length ? cells.join(' · ') : 'no file';
}

const ranges = (ys: number[]): string => {
  const out: string[] = [];
  const s = [...new Set(ys)].sort((a, b) => a - b);
  for (let i = 0; i < s.length; i++) {
    let j = i;
    while (j + 1 < s.length && SPEC_VINTAGES.acs1.concat(SPEC_VINTAGES.acs5).includes(s[j]! + 1) && s[j + 1] === s[j]! + 1) j++;
    out.push(j > i ? `${s[i]}–${s[j]}` : `${s[i]}`);
    i = j;
  }
  return out.join(', ');
};
const cell = (s: string | undefined): string => (s === undefined ? '—' : s.replace(/\|/g, '\\|'));

const source = readCatalogSource(REPO_CATALOG_DIR);
const meta = await loadCodeVintages(sourceDir, new Set(source.variables.flatMap(codesOf)));
const compiled = compileCatalog(source, meta);
const cmp = new Comparator(source.wordings);

// Withheld: one row per dataset, code and the pair of labels, with every variable and vintage.
interface Row {
  d: Dataset;
  code: string;
  here: string;
  ref: string;
  vars: Set<string>;
  years: number[];
}
const withheld = new Map<string, Row>();
for (const v of compiled.variables) {
  for (const d of ['acs1', 'acs5'] as const) {
    for (const n of v.not_comparable[d]) {
      const m = /^(\w+)(?: \(for \w+\))?: (?:label|universe) "(.+)" differs from "(.+)" \(/.exec(n.reason)!;
      const key = `${d}|${m[1]}|${m[3]}|${cmp.normalizeLabel(m[2]!)}`;
      const row = withheld.get(key) ?? { d, code: m[1]!, here: m[2]!, ref: m[3]!, vars: new Set(), years: [] };
      row.vars.add(v.api_name);
      row.years.push(n.vintage);
      withheld.set(key, row);
    }
  }
}

// Released: served vintages whose raw label differs from the reference before the reviewed rules.
const latest = (d: Dataset, code: string): string | undefined =>
  [...(meta.codes.get(d)!.get(code) ?? new Map()).entries()].filter(([, i]) => i.label !== null).sort((a, b) => b[0] - a[0])[0]?.[1].label;
const released = new Map<string, Row & { rule: string }>();
for (const sv of source.variables) {
  const v = compiled.variables.find((x) => x.api_name === sv.api_name)!;
  const main = sv.census_code ? [sv.census_code] : componentCodes(parseFormula(sv.formula!));
  for (const d of ['acs1', 'acs5'] as const) {
    for (const y of v.availability[d]) {
      const r = v.resolution[d][String(y)]!;
      const codes = r.kind === 'direct' ? [r.code] : r.kind === 'derived' ? r.codes : [];
      codes.forEach((code, i) => {
        const here = meta.codes.get(d)!.get(code)?.get(y)?.label;
        const ref = latest(d, main[i]!);
        if (!here || !ref || sameLabel(here, ref)) return;
        const rule = cmp.sameLabel(here, ref) ? 'equivalent wording' : 'sum over a dimension';
        const key = `${d}|${code}|${ref}|${cmp.normalizeLabel(here)}|${rule}`;
        const row = released.get(key) ?? { d, code, here, ref, vars: new Set(), years: [], rule };
        row.vars.add(v.api_name);
        row.years.push(y);
        released.set(key, row);
      });
    }
  }
}

const out: string[] = [];
out.push(`### Withheld (${[...withheld.values()].reduce((a, r) => a + r.vars.size * new Set(r.years).size, 0)} variable-vintages)`, '');
out.push(
  '| dataset | code | vintages | shell label (that vintage) | API label (that vintage) | reference label | nation, around the change | California, around the change | variables |',
);
out.push('|---|---|---|---|---|---|---|---|---|');
for (const r of [...withheld.values()].sort((a, b) => a.code.localeCompare(b.code) || a.d.localeCompare(b.d))) {
  const ys = [...new Set(r.years)];
  const y0 = Math.min(...ys);
  const shell =
    shellLabel(r.d, y0, r.code) ?? (r.d === 'acs5' && y0 === 2009 ? `(none; 2010: ${shellLabel('acs5', 2010, r.code) ?? '—'})` : undefined);
  out.push(
    `| ${r.d} | ${r.code} | ${ranges(ys)} | ${cell(shell)} | ${cell(r.d === 'acs1' ? apiLabel(y0, r.code) : undefined)} | ${cell(r.ref)} | ${cell(around(r.d, ys, r.code, 'nation'))} | ${cell(around(r.d, ys, r.code, 'state'))} | ${[...r.vars].join(', ')} |`,
  );
}
out.push('', `### Served although the raw label differs (${released.size} code/label pairs)`, '');
out.push('| dataset | code | vintages | label in those vintages | reference label | released by | variables |');
out.push('|---|---|---|---|---|---|---|');
for (const r of [...released.values()].sort((a, b) => a.code.localeCompare(b.code) || a.d.localeCompare(b.d))) {
  out.push(`| ${r.d} | ${r.code} | ${ranges(r.years)} | ${cell(r.here)} | ${cell(r.ref)} | ${r.rule} | ${[...r.vars].join(', ')} |`);
}
process.stdout.write(out.join('\n') + '\n');
