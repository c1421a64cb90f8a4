// Flat codebook exports (one row per variable) for download: JSON and CSV with the same columns.
import { stringify } from 'csv-stringify/sync';
import { CODEBOOK_COLUMNS, type CodebookRow } from '../../../src/store/codebook-columns.js';
import type { CompiledCatalog } from './compile.js';

/** Lists are `;`-joined so the JSON and CSV rows are identical strings (empty = none). */
export function codebookRows(c: CompiledCatalog): CodebookRow[] {
  return c.variables.map((v) => ({
    api_name: v.api_name,
    census_code: v.census_code ?? '',
    label: v.label,
    unit: v.unit,
    topic: v.topic.topic_key,
    topic_label: v.topic.label,
    display_format: v.display_format,
    formula: v.formula ?? '',
    component_codes: (v.component_codes ?? []).join(';'),
    acs5_vintages: v.availability.acs5.join(';'),
    acs1_vintages: v.availability.acs1.join(';'),
    not_comparable: (['acs1', 'acs5'] as const).flatMap((d) => v.not_comparable[d].map((n) => `${d}:${n.vintage}`)).join(';'),
  }));
}

export function codebookCsv(rows: CodebookRow[]): string {
  // Labels are user-facing text: a leading =,+,-,@ would be run as a formula by spreadsheets.
  const safe = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, /^[=+\-@\t\r]/.test(v) ? `'${v}` : v])));
  return stringify(safe, { header: true, columns: [...CODEBOOK_COLUMNS] });
}
