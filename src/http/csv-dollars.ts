// The CSV columns dollars= and compare_to= add to the data routes' tables: the same fields as the
// JSON cells, flattened, present only when the request asked for them (so plain CSVs are unchanged).
import type { CellDollars } from '../verbs/observations/dollars.js';
import type { CellChange } from '../verbs/observations/change.js';
import type { CsvTable } from './csv.js';

type Extra = { dollars?: CellDollars; change?: CellChange };

/** dollars_factor, dollars_source_year, dollars_target_year (empty for a cell left as published), dollars_note. */
export function withDollarsColumns(table: CsvTable, cells: readonly object[]): CsvTable {
  if (!cells.some((c) => (c as Extra).dollars)) return table;
  return {
    ...table,
    columns: [...table.columns, 'dollars_factor', 'dollars_source_year', 'dollars_target_year', 'dollars_note'],
    rows: table.rows.map((r, i) => {
      const d = (cells[i] as Extra).dollars;
      return d?.adjusted
        ? [...r, d.factor, d.source_year, d.target_year, null]
        : [...r, null, null, null, d && !d.adjusted ? d.reason : null];
    }),
  };
}

/** The change object's fields, one column each. */
export function withChangeColumns(table: CsvTable, cells: readonly object[]): CsvTable {
  if (!cells.some((c) => (c as Extra).change !== undefined)) return table;
  const keys = [
    'base_vintage',
    'base_estimate',
    'base_moe',
    'difference',
    'difference_moe',
    'percent_change',
    'percent_change_moe',
    'significant',
    'not_tested_reason',
  ] as const;
  return {
    ...table,
    columns: [...table.columns, ...keys.map((k) => `change_${k}`)],
    rows: table.rows.map((r, i) => {
      const c = (cells[i] as Extra).change;
      return [...r, ...keys.map((k) => (c ? (typeof c[k] === 'boolean' ? String(c[k]) : (c[k] as number | string | null)) : null))];
    }),
  };
}
