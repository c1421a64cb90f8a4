// What the compatibility endpoint (/data/{vintage}/acs/{dataset}) needs of a source file beyond its
// values, so that it answers the same text the Bureau published: the table's columns in the file's
// order, each geography's NAME and GEO_ID, and the cells whose text the stored number and
// annotation do not give back (src/domain/census-api/published-text.ts says which). Computed from
// the file's parsed JSON with the string reader's own rules (cellValues), so what is called
// "stored" here is what the partition stores.
import { renderAnnotation, renderValue, type PublishedForm } from '../../../src/domain/census-api/published-text.js';
import { cellValues, headerPlan, plainNumber, readApiTable, type Cell } from '../../sources/api-body.js';

export interface FileForm {
  tables: Array<[table: string, columns: string]>;
  names: Array<[key: string, name: string | null]>;
  geoIds: Array<[key: string, geoId: string | null]>;
  text: Array<[key: string, column: string, text: string | null]>;
}

export function fileForm(text: string, file: string): FileForm {
  const { header, rows } = readApiTable(text);
  const plan = headerPlan(header, file);
  const tableOf = new Map(plan.variables.map((v) => [v.variable.slice(0, -1), v.table]));
  // Columns per table (a body holds one group; a `get=` list may hold several).
  const perTable = new Map<string, string[]>();
  const add = (table: string, c: string) => (perTable.get(table) ?? perTable.set(table, []).get(table)!).push(c);
  const tables = [...new Set(plan.variables.map((v) => v.table))];
  for (const name of header.slice(0, plan.geoStart)) {
    if (name === 'GEO_ID' || name === 'NAME') {
      for (const t of tables) if (!perTable.get(t)?.includes(name)) add(t, name);
      continue;
    }
    const m = /^(.*_\d{3})(E|M|EA|MA)$/.exec(name);
    const t = m ? tableOf.get(m[1]!) : undefined;
    if (t) add(t, name.slice(t.length + 1));
  }
  const out: FileForm = { tables: [...perTable].map(([t, cols]) => [t, cols.join(' ')]), names: [], geoIds: [], text: [] };
  const seen = new Set<string>();
  rows.forEach((cells: Cell[], i) => {
    const r = i + 1;
    const key = plan.geoSet.key(cells.slice(plan.geoStart) as string[]);
    if (seen.has(key)) return; // an exact repeat (the string reader refuses any other)
    seen.add(key);
    // Every geography the file publishes gets an entry, null when the file has no NAME column
    // (a `get=` without NAME): the compatibility endpoint answers exactly the geographies listed
    // here and names the null ones from the geographies table (issue 34 §6: a partition held only
    // in such files used to answer 204).
    out.names.push([key, plan.nameIdx === undefined ? null : (cells[plan.nameIdx] ?? null)]);
    if (plan.geoIdIdx !== undefined) out.geoIds.push([key, cells[plan.geoIdIdx] ?? null]);
    for (const v of plan.variables) {
      // Most cells: plain numbers (their text is how JavaScript prints them) and no annotation.
      if (
        (v.ea === undefined || cells[v.ea] === null) &&
        (v.ma === undefined || cells[v.ma] === null) &&
        plainNumber(cells[v.e]!) !== undefined &&
        (v.m === undefined || plainNumber(cells[v.m]!) !== undefined)
      )
        continue;
      const stem = v.variable.slice(0, -1);
      // Not tabulated for this geography: not stored, so every column renders as null.
      const untabulated =
        v.ea !== undefined &&
        cells[v.e] === null &&
        (v.m === undefined || cells[v.m] === null) &&
        !cells[v.ea] &&
        (v.ma === undefined || !cells[v.ma]);
      const c = untabulated ? null : cellValues(v, cells, file, r);
      const check = (k: number | undefined, column: string, rendered: string | null) => {
        if (k !== undefined && cells[k] !== rendered) out.text.push([key, column, cells[k] ?? null]);
      };
      check(v.e, `${stem}E`, c && renderValue(c.estimate, c.estimateAnnotation));
      check(v.m, `${stem}M`, c && renderValue(c.moe, c.moeAnnotation));
      check(v.ea, `${stem}EA`, c && renderAnnotation(c.estimateAnnotation));
      check(v.ma, `${stem}MA`, c && renderAnnotation(c.moeAnnotation));
    }
  });
  return out;
}

/** A partition's forms, file after file (the first NAME and GEO_ID of a geography stand). */
export class PartitionForm {
  private readonly form: PublishedForm = { tables: {}, names: {}, geoIds: {}, text: {} };

  add(f: FileForm): void {
    const { tables, names, geoIds, text } = this.form;
    for (const [t, cols] of f.tables) tables[t] = cols;
    // The first NAME published stands; a file without NAME does not hide a later file's.
    for (const [k, n] of f.names) if (!(k in names) || (names[k] === null && n !== null)) names[k] = n;
    for (const [k, g] of f.geoIds) if (!(k in geoIds)) geoIds[k] = g;
    for (const [k, col, t] of f.text) (text[k] ??= {})[col] = t;
  }

  json(): string {
    return JSON.stringify(this.form);
  }
}
