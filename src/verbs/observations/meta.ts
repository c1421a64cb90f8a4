// The meta every data operation returns: provenance, counts, the hint and how geographies were
// defined. One builder so data, compare and timeseries describe themselves the same way.
import { CENSUS_PROGRAM, referencePeriod } from '../../domain/datasets.js';
import type { VerbResult } from '../../context/verb-context.js';
import { gridCellCount, type EngineGrid, type EngineResult } from './engine.js';
import { fillCommand, hintFor, type FillRequest } from './hints.js';
import type { PreparedRequest } from './prepare.js';

/** Said first in meta.hint (and in MCP text) by every answer from a SYNTHETIC build. */
export const SYNTHETIC_NOTE =
  'SYNTHETIC build: these values are random numbers generated for benchmarking (etl/synthetic), not Census Bureau figures.';

export function observationMeta(
  p: PreparedRequest,
  vintages: number[],
  result: EngineResult | EngineGrid,
  opts: { referencePeriod?: string; extraHint?: string } = {},
): NonNullable<VerbResult<unknown>['meta']> {
  const last = vintages.at(-1)!;
  const synthetic = p.stores.observations.synthetic;
  const fill: FillRequest = {
    tables: [
      ...new Set(
        p.variables
          .flatMap((v) => [v.census_code, ...('component_codes' in v ? (v.component_codes ?? []) : [])])
          .filter((c): c is string => !!c)
          .map((c) => c.slice(0, c.indexOf('_'))),
      ),
    ],
    geoKeys: p.geo.geographies.map((g) => g.key),
    hasTable: (y, level, t) => p.stores.observations.hasTable(p.dataset, y, level, t),
    // A table the vintage's list lacks (not_in_vintage) has nothing to load: the command leaves it out.
    published: (y, t) => {
      const tables = p.stores.tables;
      return !tables?.hasVintageMetadata(p.dataset, y) || tables.table(p.dataset, t, y) !== null || tables.notLoaded(p.dataset, t, y);
    },
  };
  // The command that loads this answer's not-loaded cells, also on its own for pages that show it
  // to the operator once (issue 34 §5); only when some cell is null for that reason.
  const fillCommandHere = result.nullReasons.has('no_data_loaded') ? fillCommand(p.dataset, vintages, fill) : undefined;
  const hint = [
    synthetic ? SYNTHETIC_NOTE : undefined,
    opts.extraHint,
    hintFor(p.dataset, vintages, result, 'cells' in result ? result.cells.length : gridCellCount(result), fill),
  ]
    .filter(Boolean)
    .join(' ');
  return {
    source: {
      dataset: p.dataset,
      vintage_year: last,
      reference_period: opts.referencePeriod ?? referencePeriod(p.dataset, last),
      census_program: CENSUS_PROGRAM,
    },
    variable_count: p.variables.length,
    geography_count: p.geo.geographies.length,
    hint: hint || null,
    geography_definitions: p.geo.definitionVintage.description,
    ...(p.geo.notes.length ? { notes: p.geo.notes } : {}),
    ...(fillCommandHere ? { fill_command: fillCommandHere } : {}),
    // Only on a SYNTHETIC benchmark build, so real answers are unchanged.
    ...(synthetic ? { synthetic: true } : {}),
  };
}
