// The shapes of the Bureau's Detailed Table ids and variable codes, in one place: the ETL reads
// columns with them, the stores and the catalog recognise codes with them. Most tables have five
// digits and optional iteration letters (B19013, C15010B); the B99 allocation tables have six
// (B992701). A code is the table, `_`, a three-digit line and a suffix (E estimate, M margin).

/** A table id, as a regular-expression source: `B19013`, `C15010B`, `B992701`. */
const TABLE = '[BC]\\d{5,6}[A-Z]{0,4}';

/** An estimate code: `B19013_001E`. */
export const ESTIMATE_CODE = new RegExp(`^${TABLE}_\\d{3}E$`);
/** An estimate or margin code, capturing the table and the line: `B19013_001E` → `B19013`, `001`. */
export const CENSUS_CODE = new RegExp(`^(${TABLE})_(\\d{3})[EM]$`);
/** A variable as the Census Data API names its columns, capturing table, line and suffix: `B19013_001MA` → `B19013`, `001`, `MA`. */
export const API_VARIABLE = new RegExp(`^(${TABLE})_(\\d{3})(E|M|EA|MA)$`);
/** A whole table in the Census Data API's `get=`: `group(B19013)`, capturing the table. */
export const API_GROUP = new RegExp(`^group\\((${TABLE})\\)$`);
/** A code of either suffix or none, for search: `B19013_001`, `b19013_001m`. */
export const CODE_LIKE = new RegExp(`^${TABLE}_\\d{3}[EM]?$`, 'i');
/** A whole table in a variables list: `B19013*`, capturing the table. */
export const CENSUS_TABLE_WILDCARD = new RegExp(`^(${TABLE})\\*$`);
/** A table-id prefix typed into a search box: `B`, `B19`, `B992701`. */
export const TABLE_ID_PREFIX = /^[BC]\d{0,6}[A-Z]{0,4}$/;
/** A search that is a census code or table prefix (`B07009`, `b19013_001`, `C15010D_003E`). */
export const CODE_PREFIX = /^[BC]\d{2,6}[A-Z]{0,4}(_\d{0,3}[EM]?)?$/;
/** An estimate column of an API body, any group letter (the ETL reads every published group): table, line. */
export const ESTIMATE_COLUMN = /^([A-Z]\d{5,6}[A-Z]{0,4})_(\d{3})E$/;
/** Estimate codes inside a formula's text. */
export const ESTIMATE_CODES_IN_TEXT = new RegExp(`\\b${TABLE}_\\d{3}E\\b`, 'g');
