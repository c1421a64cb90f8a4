// Where a geography's definition changes inside a time series: the API's
// /v1/geographies/{key} lists every definition the key has had across ACS vintages
// (`definitions[]`: 2010 vs 2020 tracts, a county before or after a change, Connecticut's legacy
// counties until 2021 and planning regions from 2022, a metro as one release published it, a
// district of another Congress). A series that crosses a boundary between two of them compares
// different areas under one key, so the chart marks the first year of each new definition.

export interface Definition {
  definition: string;
  valid_from: number;
  valid_to: number | null;
}

export interface DefinitionChange {
  /** First vintage of the new state of affairs (the marker sits on it). */
  vintage: number;
  /** One sentence a person reads (and a screen reader announces). */
  text: string;
}

/** A definition code of the geography store in words. */
export function definitionText(code: string): string {
  let m = /^(tract|block_group)-(\d{4})$/.exec(code);
  if (m) return `${m[2]} census ${m[1] === 'tract' ? 'tract' : 'block group'}`;
  m = /^cd(\d+)$/.exec(code);
  if (m) return `district of the ${m[1]}th Congress`;
  m = /^cbsa-(\d{4})-(\d{2})$/.exec(code);
  if (m)
    return `metro of the ${new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1)).toLocaleString('en-US', { month: 'long', timeZone: 'UTC' })} ${m[1]} delineation`;
  m = /^(\w+)-as-published-(\d{4})$/.exec(code);
  if (m) {
    const what = m[1] === 'cbsa' ? 'metro' : m[1] === 'cd' ? 'district' : m[1] === 'block_group' ? 'block group' : m[1];
    return `${what} as the ACS ${m[2]} release published it`;
  }
  return code.replace(/_/g, ' ');
}

const covers = (d: Definition, y: number) => d.valid_from <= y && (d.valid_to === null || y <= d.valid_to);

// The one county-level change every user of the data meets (docs/geographies.md).
const CONNECTICUT = 'Connecticut’s 9 planning regions replaced its 8 counties as county equivalents from ACS 2022 (docs/geographies.md).';

/** Changes of definition of `key` between consecutive years of `years` (ascending). */
export function definitionChanges(key: string, definitions: Definition[], years: number[]): DefinitionChange[] {
  const out: DefinitionChange[] = [];
  for (let i = 1; i < years.length; i++) {
    const before = definitions.find((d) => covers(d, years[i - 1]!));
    const after = definitions.find((d) => covers(d, years[i]!));
    if (before === after) continue;
    const y = years[i]!;
    let text: string;
    if (before && after) {
      text =
        before.definition === after.definition
          ? `Definition changes from ${y} (same kind, ${definitionText(after.definition)}, but a new name or extent).`
          : `Definition changes from ${y}: ${definitionText(after.definition)} (${definitionText(before.definition)} before). Values on either side may describe different areas.`;
    } else if (after) {
      text = `First defined in ${y} (${definitionText(after.definition)}); it did not exist under earlier definitions.`;
    } else {
      text = `Not defined from ${y}: last defined in ${before!.valid_to ?? years[i - 1]} (replaced or retired).`;
    }
    if (key.startsWith('county:09') && y === 2022) text += ` ${CONNECTICUT}`;
    out.push({ vintage: y, text });
  }
  return out;
}
