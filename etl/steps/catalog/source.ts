// Reading and validating the human-reviewed catalog source (catalog/*.json in the repo).
// Every problem names the file and the entry so a reviewer can fix it without a debugger.
import fs from 'node:fs';
import path from 'node:path';
import { componentCodes, ESTIMATE_CODE, FormulaError, parseFormula } from '../../../src/domain/formula.js';
import { InputError } from '../../step.js';
import type { Wording } from './comparability.js';
import type { Dataset } from './metadata.js';

export const EXPECTED_VARIABLES = 392;
export const EXPECTED_TOPICS = ['core', 'demographics', 'economics', 'environment', 'equity', 'health', 'housing', 'social', 'transport'];
export const UNITS = ['count', 'dollar', 'percent', 'year'] as const;
export const DISPLAY_FORMATS = ['integer', 'currency', 'percent_1', 'decimal_1', 'decimal_2', 'decimal_4', 'year'] as const;

export interface SourceTopic {
  topic_key: string;
  label: string;
  depth: number;
  parent?: string;
}

export interface CodeOverride {
  dataset: Dataset;
  from: number;
  to: number;
  census_code: string;
}

export interface FormulaOverride {
  dataset: Dataset;
  from: number;
  to: number;
  formula: string;
}

export interface SourceVariable {
  api_name: string;
  census_code: string | null;
  formula?: string;
  label: string;
  unit: (typeof UNITS)[number];
  display_format: (typeof DISPLAY_FORMATS)[number];
  vintage_overrides?: CodeOverride[];
  formula_overrides?: FormulaOverride[];
  notes?: string;
  /** Set by the reader: the topic file it came from. */
  topic: string;
  file: string;
}

export interface CatalogSource {
  topics: SourceTopic[];
  variables: SourceVariable[];
  /** catalog/equivalent_wordings.json: reviewed wordings that mean the same in every code. */
  wordings: Wording[];
  /** Every file read, relative to the catalog's parent directory, with its bytes (for hashing). */
  files: { name: string; content: Buffer }[];
}

const ALLOWED_KEYS = new Set([
  'api_name',
  'census_code',
  'formula',
  'label',
  'unit',
  'display_format',
  'vintage_overrides',
  'formula_overrides',
  'notes',
]);

export const WORDINGS_FILE = 'equivalent_wordings.json';

/** Per-entry acceptances made the same wording change count in one variable and not another. */
const RETIRED_KEYS = new Set(['accept_label_variants', 'accept_universe_variants']);

function fail(file: string, message: string): never {
  throw new InputError(file, message);
}

function readJson(file: string, abs: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(abs, 'utf8'));
  } catch (e) {
    fail(file, `not valid JSON: ${(e as Error).message}`);
  }
}

/** Read catalog/topics.json and catalog/<topic>.json; structural checks only (no metadata). */
export function readCatalogSource(catalogDir: string): CatalogSource {
  const rel = (f: string): string => `catalog/${f}`;
  const files: CatalogSource['files'] = [];
  const topicsAbs = path.join(catalogDir, 'topics.json');
  if (!fs.existsSync(topicsAbs)) fail(rel('topics.json'), 'missing');
  files.push({ name: rel('topics.json'), content: fs.readFileSync(topicsAbs) });
  const topicsDoc = readJson(rel('topics.json'), topicsAbs) as { topics?: SourceTopic[] };
  const topics = topicsDoc.topics;
  if (!Array.isArray(topics)) fail(rel('topics.json'), 'expected {"topics": [...]}');
  const keys = new Set<string>();
  for (const [i, t] of topics.entries()) {
    if (typeof t.topic_key !== 'string' || !/^[a-z][a-z0-9_]*$/.test(t.topic_key))
      fail(rel('topics.json'), `topic #${i + 1}: bad topic_key`);
    if (keys.has(t.topic_key)) fail(rel('topics.json'), `topic "${t.topic_key}" listed twice`);
    if (typeof t.label !== 'string' || !t.label) fail(rel('topics.json'), `topic "${t.topic_key}": missing label`);
    if (!Number.isInteger(t.depth) || t.depth < 0) fail(rel('topics.json'), `topic "${t.topic_key}": depth must be an integer ≥ 0`);
    if (t.depth > 0 && (!t.parent || !keys.has(t.parent)))
      fail(rel('topics.json'), `topic "${t.topic_key}": a subtopic needs a parent listed before it`);
    keys.add(t.topic_key);
  }
  const roots = topics
    .filter((t) => t.depth === 0)
    .map((t) => t.topic_key)
    .sort();
  if (roots.join(',') !== [...EXPECTED_TOPICS].sort().join(',')) {
    fail(rel('topics.json'), `expected the ${EXPECTED_TOPICS.length} root topics ${EXPECTED_TOPICS.join(', ')}; found ${roots.join(', ')}`);
  }

  const variables: SourceVariable[] = [];
  const seen = new Map<string, string>();
  for (const topic of roots) {
    const file = rel(`${topic}.json`);
    const abs = path.join(catalogDir, `${topic}.json`);
    if (!fs.existsSync(abs)) fail(file, `missing: every root topic has one file`);
    files.push({ name: file, content: fs.readFileSync(abs) });
    const doc = readJson(file, abs) as { topic?: string; variables?: unknown[] };
    if (doc.topic !== topic) fail(file, `"topic" must be "${topic}"`);
    if (!Array.isArray(doc.variables)) fail(file, 'expected "variables": [...]');
    for (const [i, raw] of doc.variables.entries()) {
      const v = raw as SourceVariable;
      const where = `entry #${i + 1}${typeof v?.api_name === 'string' ? ` (${v.api_name})` : ''}`;
      const bad = (m: string): never => fail(file, `${where}: ${m}`);
      if (typeof v !== 'object' || v === null) bad('not an object');
      for (const k of Object.keys(v)) {
        if (RETIRED_KEYS.has(k))
          bad(`"${k}" is retired: a wording judged equivalent goes in catalog/${WORDINGS_FILE} and then holds for every variable`);
        if (!ALLOWED_KEYS.has(k)) bad(`unknown field "${k}"`);
      }
      if (typeof v.api_name !== 'string' || !new RegExp(`^${topic}_[a-z0-9]+(_[a-z0-9]+)*$`).test(v.api_name)) {
        bad(`api_name must be lower_snake_case and start with "${topic}_"`);
      }
      // Years of survey vintages are banned; bracket bounds such as "built_1939_or_earlier" are not vintages.
      if (/(?:^|_)20[0-3]\d(?:_|$)/.test(v.api_name)) bad('api_name must not carry a vintage year');
      const dup = seen.get(v.api_name);
      if (dup) bad(`api_name also used in ${dup}`);
      seen.set(v.api_name, file);
      if (typeof v.label !== 'string' || v.label.trim() === '') bad('missing label');
      if (!UNITS.includes(v.unit)) bad(`unit must be one of ${UNITS.join(', ')}`);
      if (!DISPLAY_FORMATS.includes(v.display_format)) bad(`display_format must be one of ${DISPLAY_FORMATS.join(', ')}`);
      const hasCode = v.census_code !== null && v.census_code !== undefined;
      if (hasCode === (v.formula !== undefined))
        bad('give exactly one of census_code (published) or formula (derived, with census_code null)');
      if (hasCode && (typeof v.census_code !== 'string' || !ESTIMATE_CODE.test(v.census_code)))
        bad(`census_code "${String(v.census_code)}" is not a detailed-table estimate code`);
      if (v.formula !== undefined) {
        try {
          parseFormula(v.formula);
        } catch (e) {
          if (e instanceof FormulaError) bad(e.message);
          throw e;
        }
      }
      for (const o of v.vintage_overrides ?? []) {
        if (!hasCode) bad('vintage_overrides apply to published variables; use formula_overrides for derived ones');
        checkRange(o, bad);
        if (!ESTIMATE_CODE.test(o.census_code)) bad(`override census_code "${o.census_code}" is not an estimate code`);
      }
      for (const o of v.formula_overrides ?? []) {
        if (hasCode) bad('formula_overrides apply to derived variables');
        checkRange(o, bad);
        try {
          const main = componentCodes(parseFormula(v.formula!));
          if (componentCodes(parseFormula(o.formula)).length !== main.length)
            bad(`override formula "${o.formula}" must have as many codes as the main formula (compared position by position)`);
        } catch (e) {
          if (e instanceof FormulaError) bad(e.message);
          throw e;
        }
      }
      variables.push({ ...v, census_code: hasCode ? v.census_code : null, topic, file });
    }
  }
  if (variables.length !== EXPECTED_VARIABLES) {
    fail('catalog/', `expected exactly ${EXPECTED_VARIABLES} variables, found ${variables.length}`);
  }
  return { topics, variables, wordings: readWordings(catalogDir, files), files };
}

function readWordings(catalogDir: string, files: CatalogSource['files']): Wording[] {
  const file = `catalog/${WORDINGS_FILE}`;
  const abs = path.join(catalogDir, WORDINGS_FILE);
  if (!fs.existsSync(abs)) fail(file, 'missing (an empty list is {"equivalent_wordings": []})');
  files.push({ name: file, content: fs.readFileSync(abs) });
  const doc = readJson(file, abs) as { equivalent_wordings?: unknown };
  if (!Array.isArray(doc.equivalent_wordings)) fail(file, 'expected {"equivalent_wordings": [...]}');
  const seen = new Map<string, number>();
  return doc.equivalent_wordings.map((raw, i): Wording => {
    const w = raw as Wording;
    const bad = (m: string): never => fail(file, `entry #${i + 1}: ${m}`);
    if (typeof w !== 'object' || w === null) bad('not an object');
    for (const k of Object.keys(w)) if (k !== 'phrases' && k !== 'reason') bad(`unknown field "${k}"`);
    if (!Array.isArray(w.phrases) || w.phrases.length < 2 || w.phrases.some((p) => typeof p !== 'string' || p.trim() === ''))
      bad('"phrases" needs two or more non-empty strings');
    if (typeof w.reason !== 'string' || w.reason.trim().length < 10) bad('"reason" must say why the wordings mean the same thing');
    for (const p of w.phrases) {
      const key = p.toLowerCase();
      if (seen.has(key)) bad(`phrase "${p}" is also in entry #${seen.get(key)! + 1}`);
      seen.set(key, i);
    }
    return { phrases: w.phrases, reason: w.reason };
  });
}

function checkRange(o: { dataset: string; from: number; to: number }, bad: (m: string) => never): void {
  if (o.dataset !== 'acs1' && o.dataset !== 'acs5') bad(`override dataset must be acs1 or acs5`);
  if (!Number.isInteger(o.from) || !Number.isInteger(o.to) || o.from > o.to) bad('override needs integer from ≤ to');
}

/** All estimate codes a variable can touch: its code, formula components and overrides. */
export function codesOf(v: SourceVariable): string[] {
  const out = new Set<string>();
  if (v.census_code) out.add(v.census_code);
  if (v.formula) componentCodes(parseFormula(v.formula)).forEach((c) => out.add(c));
  for (const o of v.vintage_overrides ?? []) out.add(o.census_code);
  for (const o of v.formula_overrides ?? []) componentCodes(parseFormula(o.formula)).forEach((c) => out.add(c));
  return [...out];
}
