// The compiled census-table metadata (build dir `tables/{dataset}.json`), written by the ETL step
// `census-tables` and read by CensusTableStore. One definition of the format for both sides.
//
// Labels, titles and universes repeat across vintages, so they are interned in `strings` and a
// vintage set is a bit mask over `vintages` (bit i = vintages[i]): about 1.1 M code-vintages fit in
// a few MB and load in well under a second.

export const CENSUS_TABLES_SCHEMA_VERSION = 1;

/** `[vintage mask, string index or -1, string index or -1]`. */
export type TableVersion = [mask: number, title: number, universe: number];

/** Bits of a column version's flags: how this vintage differs from the code's latest vintage. */
export const LABEL_CHANGED = 1;
export const UNIVERSE_CHANGED = 2;
/**
 * The Census Data API's `predicateType` of the code that vintage (from the verbatim API lists;
 * neither bit: the source did not say, as for vintages known only from table shells).
 */
export const PREDICATE_INT = 4;
export const PREDICATE_FLOAT = 8;
/** The API listed the estimate without a margin of error that vintage (quality and allocation tables, B98/B99). */
export const NO_MOE = 16;

/** `[vintage mask, label string index or -1, flags]`. */
export type ColumnVersion = [mask: number, label: number, flags: number];

/** `[line suffix such as "001", indent or -1, versions]`, in line order. */
export type CompiledColumn = [suffix: string, indent: number, versions: ColumnVersion[]];

export interface CompiledTable {
  v: TableVersion[];
  c: CompiledColumn[];
}

export interface CompiledCensusTables {
  schema_version: number;
  dataset: string;
  vintages: number[];
  strings: string[];
  tables: Record<string, CompiledTable>;
  /**
   * Tables groups.json names whose lines this build did not read, with a vintage mask (an online
   * selection of other tables): published by the Bureau, not loaded. Absent when there are none.
   */
  listed_only?: Record<string, number>;
  synthetic?: boolean;
}

export const censusTablesFile = (dataset: string) => `tables/${dataset}.json`;
