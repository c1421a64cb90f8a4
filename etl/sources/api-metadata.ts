// The one reader of the Census Data API's metadata documents, as `etl build --online` caches them
// (gzip of the body byte for byte) beside the value files of the same dataset and vintage:
//   api/{vintage}/{bureau path}/groups.json.gz           every group: name, description (the table's
//                                                         title), `universe ` where the vintage gives one
//   api/{vintage}/{bureau path}/groups/{GROUP}.json.gz   one group's variables
//   api/{vintage}/{bureau path}/variables.json.gz        every variable of the dataset (--all-tables)
// Documented by the Bureau in the Census Data API User Guide ("Variables", "Groups") and published
// per dataset at https://api.census.gov/data/{vintage}/acs/acs5/groups.json (docs/sources.md, "Labels").
//
// A variables document is `{"variables": {NAME: {label, concept, predicateType, group, limit,
// attributes, predicateOnly…}}}`. This reader keeps each Detailed-Table estimate (`…_001E`) and
// margin (`…_001M`) in the shape of the verbatim API label lists (VARIABLE, LABEL, GROUP, TYPE), so
// the steps read the Bureau's labels with one code path whichever file carried them. The Bureau's
// text is kept as published: `Estimate!!Total:!!Male:` (2019 on; `Estimate!!Total!!Male` before),
// concepts upper-case through 2022. groups.json spells the universe key `"universe "` (with a
// trailing space); both spellings are read.
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { datasetKeys, datasetSpec, type DatasetKey } from '../../src/domain/datasets.js';
import { InputError } from '../step.js';
import { BodyError } from './api-body.js';

/** The metadata documents one dataset vintage can have, named as the API names them. */
export type MetadataDocument = 'groups.json' | 'variables.json' | `groups/${string}.json`;

export const apiMetadataDir = (dataset: DatasetKey, vintage: number): string => `api/${vintage}/${datasetSpec(dataset).bureauPath}`;

/** Cache path of one document (relative to the source root). */
export const apiMetadataPath = (dataset: DatasetKey, vintage: number, doc: MetadataDocument): string =>
  `${apiMetadataDir(dataset, vintage)}/${doc}.gz`;

/** One estimate or margin as the verbatim API lists give it. */
export interface ApiLabelRow {
  VARIABLE: string;
  LABEL: string;
  GROUP: string;
  /** The API's predicateType (`int`, `float`, …) or '' when it gave none. */
  TYPE: string;
}

export interface ApiMetadata {
  /** The files read, relative to the source root (for messages and provenance). */
  files: string[];
  /** group → title (groups.json `description`) and universe, for every group groups.json lists. */
  tables: Map<string, { title: string | null; universe: string | null }>;
  /** Every estimate and margin of the groups whose variables were downloaded. */
  rows: ApiLabelRow[];
}

/** A Detailed-Table estimate or margin (annotations `…EA`/`…MA` are derived, not read). */
const ESTIMATE_OR_MOE = /^([A-Z]+[0-9]+[A-Z0-9]*)_\d{3}[EM]$/;

const looksLikeHtml = (text: string) => /^\s*</.test(text);

function parseJson(text: string, doc: string): unknown {
  if (looksLikeHtml(text)) {
    const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    throw new BodyError(`an HTML page instead of ${doc}${title ? ` ("${title}")` : ''}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new BodyError(`${doc} is not valid JSON (${(e as Error).message}; ${text.length} characters)`);
  }
}

const str = (x: unknown): string | null => (typeof x === 'string' && x.trim() !== '' ? x : null);

/** groups.json → group → title and universe; throws BodyError when the body is not that document. */
export function parseGroupsDocument(text: string): ApiMetadata['tables'] {
  const body = parseJson(text, 'groups.json') as { groups?: unknown } | null;
  const groups = body?.groups;
  if (!Array.isArray(groups)) throw new BodyError('groups.json has no "groups" array');
  const out: ApiMetadata['tables'] = new Map();
  for (const [i, g] of groups.entries()) {
    const o = g as Record<string, unknown> | null;
    const name = o?.name;
    if (typeof name !== 'string' || name === '') throw new BodyError(`groups.json: group #${i + 1} has no "name"`);
    out.set(name, { title: str(o!.description), universe: str(o!['universe ']) ?? str(o!.universe) });
  }
  return out;
}

/**
 * A variables document (variables.json or groups/{GROUP}.json) → its estimates and margins.
 * `group`: the group a groups/{GROUP}.json must describe (a body for another group is refused).
 */
export function parseVariablesDocument(text: string, doc: string, group?: string): ApiLabelRow[] {
  const body = parseJson(text, doc) as { variables?: unknown } | null;
  const vars = body?.variables;
  if (!vars || typeof vars !== 'object' || Array.isArray(vars)) throw new BodyError(`${doc} has no "variables" object`);
  const rows: ApiLabelRow[] = [];
  for (const [name, raw] of Object.entries(vars as Record<string, unknown>)) {
    const m = ESTIMATE_OR_MOE.exec(name);
    if (!m) continue;
    const v = raw as Record<string, unknown> | null;
    const label = str(v?.label);
    if (label === null) throw new BodyError(`${doc}: ${name} has no "label"`);
    const g = str(v!.group) ?? m[1]!;
    if (g !== m[1]) throw new BodyError(`${doc}: ${name} is listed in group ${g}`);
    if (group !== undefined && g !== group) throw new BodyError(`${doc}: lists ${name}, a variable of another group`);
    rows.push({ VARIABLE: name, LABEL: label, GROUP: g, TYPE: str(v!.predicateType) ?? '' });
  }
  if (group !== undefined && rows.length === 0) throw new BodyError(`${doc} lists no estimate of ${group}`);
  return rows;
}

/** Check a downloaded document before it is cached; throws BodyError naming what is wrong. */
export function validateMetadataDocument(doc: MetadataDocument, body: Buffer): void {
  if (body.length === 0) throw new BodyError(`empty body instead of ${doc}`);
  const text = body.toString('utf8');
  if (doc === 'groups.json') {
    parseGroupsDocument(text);
    return;
  }
  const g = /^groups\/(.+)\.json$/.exec(doc);
  parseVariablesDocument(text, doc, g?.[1]);
}

async function readDir(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch {
    return [];
  }
}

/** Every metadata document in the source tree, for each registered dataset's vintages. */
export async function listApiMetadataInputs(sourceDir: string): Promise<string[]> {
  const out: string[] = [];
  for (const dataset of datasetKeys())
    for (const v of datasetSpec(dataset).vintages) {
      const dir = apiMetadataDir(dataset, v);
      const here = await readDir(path.join(sourceDir, dir));
      for (const f of ['groups.json.gz', 'variables.json.gz']) if (here.includes(f)) out.push(`${dir}/${f}`);
      for (const f of (await readDir(path.join(sourceDir, dir, 'groups'))).sort())
        if (/^[A-Z]+[0-9]+[A-Z0-9]*\.json\.gz$/.test(f)) out.push(`${dir}/groups/${f}`);
    }
  return out;
}

async function readText(sourceDir: string, rel: string): Promise<string> {
  try {
    return gunzipSync(await fs.readFile(path.join(sourceDir, rel))).toString('utf8');
  } catch (e) {
    throw new InputError(rel, `not a readable gzip file: ${(e as Error).message}`);
  }
}

/**
 * The API metadata of one dataset vintage among `inputs` (the step's listed inputs), or null when
 * the source tree has none. variables.json and groups/{GROUP}.json may both be there (a later
 * selection); a group's own document is read last, and both are the Bureau's same list.
 */
export async function readApiMetadata(
  sourceDir: string,
  dataset: DatasetKey,
  vintage: number,
  inputs: ReadonlySet<string>,
): Promise<ApiMetadata | null> {
  const dir = `${apiMetadataDir(dataset, vintage)}/`;
  const mine = [...inputs].filter((f) => f.startsWith(dir)).sort();
  if (mine.length === 0) return null;
  const out: ApiMetadata = { files: mine, tables: new Map(), rows: [] };
  const asInput = async <T>(rel: string, parse: (text: string) => T): Promise<T> => {
    try {
      return parse(await readText(sourceDir, rel));
    } catch (e) {
      if (e instanceof BodyError) throw new InputError(rel, e.message);
      throw e;
    }
  };
  const groupsFile = `${dir}groups.json.gz`;
  if (mine.includes(groupsFile)) out.tables = await asInput(groupsFile, parseGroupsDocument);
  const byVariable = new Map<string, ApiLabelRow>();
  const variablesFile = `${dir}variables.json.gz`;
  const docs = [...(mine.includes(variablesFile) ? [variablesFile] : []), ...mine.filter((f) => f.startsWith(`${dir}groups/`))];
  for (const rel of docs) {
    const group = /groups\/(.+)\.json\.gz$/.exec(rel)?.[1];
    for (const r of await asInput(rel, (t) => parseVariablesDocument(t, rel, group))) byVariable.set(r.VARIABLE, r);
  }
  out.rows = [...byVariable.values()].sort((a, b) => (a.VARIABLE < b.VARIABLE ? -1 : a.VARIABLE > b.VARIABLE ? 1 : 0));
  return out;
}
