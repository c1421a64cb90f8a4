// How a stored cell (a number or null plus an annotation code, src/domain/annotations.ts) is
// written back in the Census Data API's text. The store keeps values as doubles, so the text the
// Bureau published is this rendering for almost every cell; where it is not ("40.0", "0.50", a
// 2005–2009 MOE "0" beside `*****`, "-666666666.0", a top-coded median's "250,000+"), the ETL
// keeps the published text beside the partition (etl/steps/observations/published-form.ts), and
// that text wins. The ETL and the server share this function, so what one calls "as rendered"
// the other renders.
import type { AnnotationCode } from '../annotations.js';

/** The jam value the Bureau writes in an E or M column for each "no number" annotation. */
const JAM: Partial<Record<AnnotationCode, string>> = {
  not_computable: '-666666666',
  insufficient_sample: '-999999999',
  not_applicable: '-888888888',
  moe_not_computable: '-222222222',
  moe_open_ended: '-333333333',
  controlled: '-555555555',
};

/** The EA / MA symbol of each annotation the Bureau marks with one fixed symbol. */
const SYMBOL: Partial<Record<AnnotationCode, string>> = {
  not_computable: '-',
  insufficient_sample: 'N',
  not_applicable: '(X)',
  moe_not_computable: '**',
  moe_open_ended: '***',
  controlled: '*****',
  source_annotated: '*',
};

/** An E or M cell as the Bureau writes it, from the stored number and annotation. */
export function renderValue(value: number | null, annotation: string | null): string | null {
  if (value !== null) return String(value);
  return annotation === null ? null : (JAM[annotation as AnnotationCode] ?? null);
}

/** An EA or MA cell: the fixed symbol of the annotation, or null (interval bounds are kept as published). */
export function renderAnnotation(annotation: string | null): string | null {
  return annotation === null ? null : (SYMBOL[annotation as AnnotationCode] ?? null);
}

/**
 * What the ETL keeps of a partition beside its values, for the compatibility endpoint:
 * - `tables`: each table's columns as its source file published them, in that order, without the
 *   geography columns and with the table id left off variable columns (`GEO_ID 001E 001M NAME
 *   001EA 001MA`): `group(X)` answers exactly these columns;
 * - `names` / `geoIds`: each geography's NAME and GEO_ID as published (`names` lists every geography
 *   the partition publishes, null when its files have no NAME column);
 * - `text`: per geography, the cells whose published text is not `renderValue`/`renderAnnotation`
 *   of the stored cell (column name → text).
 */
export interface PublishedForm {
  tables: Record<string, string>;
  names: Record<string, string | null>;
  geoIds: Record<string, string | null>;
  text: Record<string, Record<string, string | null>>;
}

export const PUBLISHED_FORM_FILE = 'published-form.json';

/** A table's published columns (`tables[X]` decoded): GEO_ID, NAME and full variable column names. */
export function tableColumns(table: string, encoded: string): string[] {
  return encoded.split(' ').map((c) => (c === 'GEO_ID' || c === 'NAME' ? c : `${table}_${c}`));
}
