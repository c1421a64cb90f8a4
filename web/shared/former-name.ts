// A place found by a name it had in other vintages (issue 37 §5, §8): the API's `meta.former_name`
// (GET /v1/geographies/{name}/children), worded with names. The API's own sentence
// (`meta.name_note`) names the place by its key, which a page does not show as text.
import { placeTypeWords } from './place-type.js';

/** `meta.former_name` of /v1/geographies/{name}/children (docs/geographies.md). */
export interface FormerName {
  former_name: string;
  from: number;
  to: number | null;
  current_name: string;
  vintage: number;
  geo_key: string;
}

/**
 * “"Austin-Round Rock, TX" was this metro area's name in ACS 2017; in 2024 it is "Austin-Round
 * Rock-San Marcos, TX".” A later name asked about an earlier vintage reads the other way round.
 */
export function formerNameWords(f: FormerName): string {
  const kind = placeTypeWords(f.geo_key);
  const when = f.to === null ? `from ACS ${f.from} on` : f.from === f.to ? `in ACS ${f.from}` : `in ACS ${f.from}–${f.to}`;
  if (f.from > f.vintage) return `“${f.former_name}” is this ${kind}’s name ${when}; in ${f.vintage} it was “${f.current_name}”.`;
  return `“${f.former_name}” was this ${kind}’s name ${when}; in ${f.vintage} it is “${f.current_name}”.`;
}
