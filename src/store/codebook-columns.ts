// The columns of the codebook exports (data/…/codebook.json and .csv): the ETL writes them and
// the /v1/codebook route describes them, so the one list lives here, in the build's formats.
export const CODEBOOK_COLUMNS = [
  'api_name',
  'census_code',
  'label',
  'unit',
  'topic',
  'topic_label',
  'display_format',
  'formula',
  'component_codes',
  'acs5_vintages',
  'acs1_vintages',
  'not_comparable',
] as const;

/** One variable of codebook.json: every value a string ('' for none; vintages `;`-separated). */
export type CodebookRow = Record<(typeof CODEBOOK_COLUMNS)[number], string>;
