// The stand-in's metadata documents, in the Census Data API's format as the Bureau publishes it
// (Census Data API User Guide, "Variables" and "Groups"; e.g.
// https://api.census.gov/data/2023/acs/acs5/groups.json and …/groups/B19013.json):
//   groups.json        {"groups": [{"name", "description", "variables": URL, "universe ": …}]}
//                      (the Bureau's key is "universe " with a trailing space)
//   groups/{T}.json    {"variables": {"T_001E": {label, concept, predicateType, group, limit,
//                      attributes}, "T_001EA": {…, predicateOnly}, "T_001M", "T_001MA", …}}
//   variables.json     the same entries for every table, after for/in/ucgid/NAME/GEO_ID
// Labels follow the API's 2019-on style, `Estimate!!Total:!!…`, margins `Margin of Error!!…`,
// annotations `Annotation of …`. Every text is generated from the table id and line number, so
// a test knows the truth without reading anything: these are not the Bureau's labels.
import type { EmulatorAnswer } from '../census-emulator.js';
import type { StandinTruth } from '../census-standin.js';

export const standinTitle = (table: string): string => `Stand-in Table ${table} by Part`;
export const standinUniverse = (table: string): string => `Stand-in universe of ${table}`;

/**
 * The segments of line `line` (1-based) of a table of `count` lines below `Estimate`: a table of
 * one line is that line; otherwise line 1 is `Total:`, even lines are parts of it and odd lines
 * items of the part before them (so depths 0, 1 and 2 all occur from three lines on).
 */
export function standinPath(table: string, line: number, count: number): string[] {
  if (count === 1) return [`Stand-in measure of ${table}`];
  if (line === 1) return ['Total:'];
  if (line % 2 === 0) return ['Total:', `Part ${line} of ${table}:`];
  return ['Total:', `Part ${line - 1} of ${table}:`, `Item ${line}`];
}

/** The API label of an estimate, `Estimate!!Total:!!Part 2 of B25003:`. */
export function standinLabel(table: string, line: number, count: number): string {
  return ['Estimate', ...standinPath(table, line, count)].join('!!');
}

type Entry = Record<string, string | number | boolean>;

function tableEntries(truth: StandinTruth, table: string): Array<[string, Entry]> {
  const concept = standinTitle(table);
  const count = truth.opts.tables[table] ?? 0;
  const out: Array<[string, Entry]> = [];
  for (let line = 1; line <= count; line++) {
    const base = `${table}_${String(line).padStart(3, '0')}`;
    const e = standinLabel(table, line, count);
    const m = `Margin of Error!!${e.slice('Estimate!!'.length)}`;
    const common = { concept, group: table, limit: 0 };
    out.push([`${base}E`, { label: e, ...common, predicateType: 'int', attributes: `${base}EA,${base}M,${base}MA` }]);
    out.push([`${base}EA`, { label: `Annotation of ${e}`, ...common, predicateType: 'string', predicateOnly: true }]);
    out.push([`${base}M`, { label: m, ...common, predicateType: 'int', predicateOnly: true }]);
    out.push([`${base}MA`, { label: `Annotation of ${m}`, ...common, predicateType: 'string', predicateOnly: true }]);
  }
  return out;
}

const FIXED: Array<[string, Entry]> = [
  ['for', { label: "Census API FIPS 'for' clause", concept: 'Census API Geography Specification', predicateType: 'fips-for', group: 'N/A', limit: 0, predicateOnly: true }],
  ['in', { label: "Census API FIPS 'in' clause", concept: 'Census API Geography Specification', predicateType: 'fips-in', group: 'N/A', limit: 0, predicateOnly: true }],
  ['ucgid', { label: 'Uniform Census Geography Identifier clause', concept: 'Census API Geography Specification', predicateType: 'ucgid', group: 'N/A', limit: 0, predicateOnly: true, hasGeoCollectionSupport: true }],
  ['NAME', { label: 'Geographic Area Name', concept: 'Selectable Geographies', predicateType: 'string', group: 'N/A', limit: 0, predicateOnly: true }],
  ['GEO_ID', { label: 'Geography', concept: 'Selectable Geographies', predicateType: 'string', group: 'N/A', limit: 0, predicateOnly: true }],
]; // prettier-ignore

const json = (body: unknown): EmulatorAnswer => ({
  status: 200,
  body: JSON.stringify(body, null, 2),
  type: 'application/json;charset=utf-8',
});
const notFound = (): EmulatorAnswer => ({ status: 404, body: '<html><body>404 Not Found</body></html>', type: 'text/html' });

/** groups.json, groups/{T}.json or variables.json of the truth's dataset vintage; undefined for any other path. */
export function answerLabels(truth: StandinTruth, u: URL): EmulatorAnswer | undefined {
  const p = decodeURIComponent(u.pathname);
  const base = `/data/${truth.opts.vintage}/acs/${truth.opts.dataset}`;
  const tables = Object.keys(truth.opts.tables);
  if (p === `${base}/groups.json`)
    return json({
      groups: tables.map((name) => ({
        name,
        description: standinTitle(name),
        variables: `${u.origin}${base}/groups/${name}.json`,
        'universe ': standinUniverse(name),
      })),
    });
  if (p === `${base}/variables.json`)
    return json({ variables: Object.fromEntries([...FIXED, ...tables.flatMap((t) => tableEntries(truth, t))]) });
  const g = new RegExp(`^${base}/groups/(\\w+)\\.json$`).exec(p);
  if (g) {
    if (!tables.includes(g[1]!)) return notFound();
    return json({ variables: Object.fromEntries(tableEntries(truth, g[1]!)) });
  }
  return undefined;
}

/**
 * The table-based Summary File's table shells of the truth's release, as the Bureau publishes
 * them (`ACS{YYYY}{1|5}YR_Table_Shells.txt`; "Getting Started", table-based Summary File):
 * pipe-delimited, header `Table ID|Line|Indent|Unique ID|Label|Title|Universe|Type`, one row per
 * line with its own segment of the label and its indent.
 */
export function standinTableShells(truth: { opts: { tables: Record<string, number> } }): string {
  const rows = ['Table ID|Line|Indent|Unique ID|Label|Title|Universe|Type'];
  for (const [table, count] of Object.entries(truth.opts.tables))
    for (let line = 1; line <= count; line++) {
      const segments = standinPath(table, line, count);
      const id = `${table}_${String(line).padStart(3, '0')}`;
      rows.push(
        [table, `${line}.0`, segments.length - 1, id, segments.at(-1), standinTitle(table), standinUniverse(table), 'int'].join('|'),
      );
    }
  return `${rows.join('\r\n')}\r\n`;
}

/**
 * The shells of each Summary File release the stand-in publishes (acs5, one per vintage), where the
 * Bureau puts them: `/programs-surveys/acs/summary_file/{YYYY}/table-based-SF/documentation/
 * ACS{YYYY}5YR_Table_Shells.txt`, beside the Geos file. Undefined for any other path.
 */
export function answerTableShells(
  releases: ReadonlyArray<{ opts: { vintage: number; tables: Record<string, number> } }>,
  p: string,
): EmulatorAnswer | undefined {
  const m = /^\/programs-surveys\/acs\/summary_file\/(\d{4})\/table-based-SF\/documentation\/ACS\1(5)YR_Table_Shells\.txt$/.exec(p);
  const release = m && releases.find((r) => r.opts.vintage === Number(m[1]));
  return release ? { status: 200, body: standinTableShells(release), type: 'text/plain' } : undefined;
}
