// Turning the reasons cells are null into one sentence a person can act on (meta.hint).
import type { DatasetKey } from '../../domain/datasets.js';
import type { EngineResult } from './engine.js';

const fmt = (years: number[]) => (years.length ? years.join(', ') : 'none');

export function hintFor(dataset: DatasetKey, vintages: number[], result: EngineResult, total: number): string | null {
  const r = result.nullReasons;
  if (r.size === 0) return null;
  const parts: string[] = [];
  if (r.has('not_in_dataset')) {
    parts.push(`ACS 1-year estimates (acs1) are not published for tracts or block groups; ask for dataset=acs5 instead.`);
  }
  if (r.has('below_acs1_threshold')) {
    parts.push(`ACS 1-year estimates are published only for areas of 65,000+ people; ${r.get('below_acs1_threshold')} value(s) are for smaller areas — use dataset=acs5.`);
  }
  if (r.has('no_data_loaded')) {
    const levels = [...result.loaded.entries()].map(([level, ys]) => `${level}: ${fmt(ys)}`).join('; ');
    const all = r.get('no_data_loaded') === total;
    parts.push(
      `${all ? 'No' : 'Some'} values for ${dataset} ${vintages.length === 1 ? vintages[0] : 'these vintages'} are loaded in this deployment (the Census Bureau publishes them; rebuild the data with \`npm run etl -- build --online\` to fetch them). Vintages with values loaded for ${dataset} — ${levels}.`,
    );
  }
  if (r.has('not_in_vintage') || r.has('not_comparable')) {
    parts.push(`Some variables do not exist, or changed meaning, in ${vintages.length === 1 ? `vintage ${vintages[0]}` : 'some of these vintages'}; see /v1/variables/{api_name} for availability.`);
  }
  if (r.has('geography_not_defined')) {
    parts.push('Some geographies do not exist in some requested vintages (geography_not_defined): metros of another delineation, counties before or after a change, tracts of another census; meta.notes and meta.geography_definitions say which.');
  }
  if (parts.length === 0 && r.size > 0) {
    parts.push('Some values are null; each null cell carries an annotation explaining why.');
  }
  return parts.join(' ');
}
