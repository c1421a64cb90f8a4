// Turning the reasons cells are null into one sentence a person can act on (meta.hint).
import { otherDataset, type DatasetKey } from '../../domain/datasets.js';
import type { EngineSummary } from './engine.js';

const fmt = (years: number[]) => (years.length ? years.join(', ') : 'none');

/**
 * Written for the API user, who cannot change what the deployment holds: what is missing, which
 * vintages are here instead, and the other dataset when it holds the asked vintages; hintFor adds
 * the exact command the operator runs to load them (fillCommand, docs/etl-online.md).
 */
function notLoadedHint(dataset: DatasetKey, vintages: number[], result: EngineSummary, all: boolean): string {
  const asked = vintages.length === 1 ? String(vintages[0]) : 'these vintages';
  const held = [...result.loaded.entries()].map(([level, ys]) => `${level}: ${fmt(ys)}`).join('; ');
  const other: DatasetKey = otherDataset(dataset);
  const levels = [...result.loaded.keys()];
  const otherHas = levels.length > 0 && levels.every((level) => vintages.every((y) => result.loadedInOther.get(level)?.includes(y)));
  return [
    `${all ? 'None of these values are' : 'Some of these values are not'} in this deployment's data for ${dataset} ${asked} (the Census Bureau publishes them; this deployment has not loaded them).`,
    `Vintages this deployment holds ${dataset} values for — ${held}.`,
    otherHas ? `It holds ${other} values for ${asked} at ${levels.join(', ')} level: try dataset=${other}.` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/** What a request asked for, to name the command that loads its missing cells. */
export interface FillRequest {
  /** Tables of the requested variables (their census codes and formula components). */
  tables: string[];
  /** Geo keys of the requested geographies (`tract:48453001100`). */
  geoKeys: string[];
  hasTable: (vintage: number, level: string, table: string) => boolean;
  /** Whether the Bureau may publish the table in that vintage (false: its list lacks it, nothing to load). */
  published?: (vintage: number, table: string) => boolean;
}

/** Levels whose geo key starts with the state FIPS, so `--states` narrows the download to them. */
const STATE_SCOPED = new Set(['county', 'cd', 'tract', 'block_group']);

/**
 * The exact `npm run etl` command that loads the (vintage, level, table) cells this request found
 * missing (issue 34 §5): the selection flags of `etl build --online` (docs/etl-online.md).
 */
export function fillCommand(dataset: DatasetKey, vintages: number[], req: FillRequest): string | undefined {
  const missing = { vintages: new Set<number>(), levels: new Set<string>(), tables: new Set<string>(), states: new Set<string>() };
  const levels = new Map<string, Set<string>>();
  for (const key of req.geoKeys) {
    const [level, code] = key.split(':') as [string, string];
    const states = levels.get(level) ?? levels.set(level, new Set()).get(level)!;
    if (STATE_SCOPED.has(level)) states.add(code.slice(0, 2));
  }
  for (const y of vintages)
    for (const [level, states] of levels)
      for (const t of req.tables)
        if (!req.hasTable(y, level, t) && (req.published?.(y, t) ?? true)) {
          missing.vintages.add(y);
          missing.levels.add(level);
          missing.tables.add(t);
          for (const s of states) missing.states.add(s);
        }
  if (missing.tables.size === 0) return undefined;
  const scoped = [...missing.levels].every((l) => STATE_SCOPED.has(l)) && missing.states.size > 0;
  return [
    'npm run etl -- build --online',
    `--datasets ${dataset}`,
    `--vintages ${[...missing.vintages].sort().join(',')}`,
    `--levels ${[...missing.levels].join(',')}`,
    `--tables ${[...missing.tables].sort().join(',')}`,
    scoped ? `--states ${[...missing.states].sort().join(',')}` : '',
  ]
    .filter(Boolean)
    .join(' ');
}

export function hintFor(dataset: DatasetKey, vintages: number[], result: EngineSummary, total: number, fill?: FillRequest): string | null {
  const r = result.nullReasons;
  if (r.size === 0) return null;
  const parts: string[] = [];
  if (r.has('not_in_dataset')) {
    parts.push(`ACS 1-year estimates (acs1) are not published for tracts or block groups; ask for dataset=acs5 instead.`);
  }
  if (r.has('below_acs1_threshold')) {
    parts.push(
      `ACS 1-year estimates are published only for areas of 65,000+ people; ${r.get('below_acs1_threshold')} value(s) are for smaller areas — use dataset=acs5.`,
    );
  }
  if (r.has('no_data_loaded')) {
    parts.push(notLoadedHint(dataset, vintages, result, r.get('no_data_loaded') === total));
    const command = fill && fillCommand(dataset, vintages, fill);
    if (command) parts.push(`The deployment's operator loads them with: ${command}`);
  }
  if (r.has('not_in_vintage') || r.has('not_comparable')) {
    parts.push(
      `Some variables do not exist, or changed meaning, in ${vintages.length === 1 ? `vintage ${vintages[0]}` : 'some of these vintages'}; see /v1/variables/{api_name} for availability.`,
    );
  }
  if (r.has('geography_not_defined')) {
    parts.push(
      'Some geographies do not exist in some requested vintages (geography_not_defined): metros of another delineation, counties before or after a change, tracts of another census; meta.notes and meta.geography_definitions say which.',
    );
  }
  if (parts.length === 0 && r.size > 0) {
    parts.push('Some values are null; each null cell carries an annotation explaining why.');
  }
  return parts.join(' ');
}
