// The long format's JSON straight from the engine's grid: each cell's text is exactly
// JSON.stringify of the cell cellsOf(grid) builds (test/verbs/observations/grid-renderings.test.ts), but
// the parts every cell of a geography or of a variable shares are rendered once, so a 45,000-cell
// answer costs string joins rather than an object and a full stringify per cell (on all California
// tracts × 5 that stringify was most of the time above DuckDB's, issue 13).
import { describeAnnotation } from '../../domain/annotations.js';
import type { EngineGrid } from './engine.js';

const json = JSON.stringify;
/** A value as JSON.stringify writes it (estimates and MOEs are finite numbers or null). */
const num = (x: number | null): string => (x !== null && Number.isFinite(x) ? String(x) : 'null');

/** The JSON text of every cell of the grid, in cellsOf's order. */
export function* cellsJson(grid: EngineGrid): Generator<string> {
  const annotations = new Map<string, string>();
  const annotation = (code: string | null): string => {
    if (code === null) return 'null';
    let text = annotations.get(code);
    if (text === undefined) annotations.set(code, (text = json(describeAnnotation(code))));
    return text;
  };
  const dataset = json(grid.dataset);
  for (const s of grid.slices) {
    const heads = s.variables.map(
      (d) =>
        `"variable":${json(d.variable)},"census_code":${json(d.census_code)},"formula":${json(d.table_id !== undefined ? null : d.formula)},` +
        `"label":${json(d.label)},"unit":${json(d.unit)},"dataset":${dataset},"vintage":${s.vintage},"estimate":`,
    );
    const tails = s.variables.map((d) =>
      d.table_id !== undefined
        ? `,"table_id":${json(d.table_id)},"table_title":${json(d.table_title)},"universe":${json(d.universe)},"label_changed":${json(d.label_changed)}}`
        : '}',
    );
    const nv = s.variables.length;
    for (let g = 0; g < s.geographies.length; g++) {
      const geo = s.geographies[g]!;
      const open = `{"geo_key":${json(geo.key)},"geo_name":${json(geo.name)},"geo_type":${json(geo.type)},`;
      for (let v = 0; v < nv; v++) {
        const i = g * nv + v;
        yield `${open}${heads[v]}${num(s.estimate[i]!)},"moe_numeric":${num(s.moe[i]!)},"estimate_annotation":${annotation(s.estimate_annotation[i]!)},"moe_annotation":${annotation(s.moe_annotation[i]!)}${tails[v]}`;
      }
    }
  }
}
