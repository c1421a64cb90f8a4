// A release of the sequence-based ACS Summary File (etl/sources/sequence-file.ts) read into the
// observations step's rows: the same staging, Parquet, serving index and published form as the
// table-based release (summary-file-partitions.ts, buildRelease), one code path after the rows.
// For each folder the selection needs (the nation's for the nation and metros; each state's
// All_Geographies_Not_Tracts_Block_Groups for states, counties and districts, its
// Tracts_Block_Groups_Only for tracts and block groups), the geography file's LOGRECNOs are read,
// then each sequence zip holding a selected table is inflated to the staging directory, read
// row by row in step with its MOE file, and deleted.
import fs from 'node:fs';
import path from 'node:path';
import {
  extractSequence,
  geographyFileName,
  readGeographyCsv,
  readLookup,
  scanSequence,
  sequenceFolders,
  sequenceZipName,
  SEQUENCE_STATES,
  type SequenceGeo,
  type SequenceTable,
} from '../../sources/sequence-file.js';
import type { SummaryCell, SummaryLevel } from '../../sources/summary-file.js';
import { InputError, type StepContext } from '../../step.js';

/** Source-relative names of a sequence-based release's files (below summary-file/{dataset}/{vintage}/). */
export const SEQUENCE_FILE_RE =
  '(?:ACS_5yr_Seq_Table_Number_Lookup\\.txt|Sequence_Number_and_Table_Number_Lookup\\.txt|' +
  '[A-Za-z]+/(?:Tracts_Block_Groups_Only|All_Geographies_Not_Tracts_Block_Groups)/(?:g\\d{4}5[a-z]{2}\\.csv|\\d{4}5[a-z]{2}\\d{7}\\.zip))';

export interface SequenceSelection {
  levels: SummaryLevel[];
  states: string[] | null;
  tables: Record<string, string[] | null>;
}

export function readSequenceRelease(
  ctx: StepContext,
  release: { dataset: string; vintage: number; files: string[] },
  sel: SequenceSelection,
  stagingDir: string,
  emit: (table: string, geo: SequenceGeo, geoId: string | null, cells: SummaryCell[]) => void,
  held: (table: string, variables: string[]) => void,
): void {
  const { dataset, vintage } = release;
  const dir = `summary-file/${dataset}/${vintage}`;
  const lookupRel = release.files.find((f) => /\/(ACS_5yr_Seq_Table_Number_Lookup|Sequence_Number_and_Table_Number_Lookup)\.txt$/.test(f));
  if (!lookupRel) throw new InputError(dir, 'no sequence/table lookup (ACS_5yr_Seq_Table_Number_Lookup.txt)');
  const lookup = readLookup(path.join(ctx.sourceDir, lookupRel));
  const tables = Object.keys(sel.tables).sort();
  // The selected tables' parts, by sequence.
  const bySequence = new Map<number, SequenceTable[]>();
  for (const t of tables) {
    const parts = lookup.tables.get(t);
    if (!parts) throw new InputError(lookupRel, `selection.json names table ${t}, which the lookup does not list`);
    for (const p of parts) (bySequence.get(p.sequence) ?? bySequence.set(p.sequence, []).get(p.sequence)!).push(p);
  }
  const states = sel.states ?? Object.keys(SEQUENCE_STATES);
  const work = path.join(stagingDir, `seq-${dataset}-${vintage}`);
  fs.mkdirSync(work, { recursive: true });
  let geographies = 0;
  for (const f of sequenceFolders(sel.levels, states)) {
    const folder = `${dir}/${f.folder}/${f.group}`;
    const geoRel = `${folder}/${geographyFileName(vintage, f.usps)}`;
    if (!release.files.includes(geoRel)) throw new InputError(geoRel, 'the geography file of a selected folder is missing');
    const geos = readGeographyCsv(path.join(ctx.sourceDir, geoRel), new Set(f.levels));
    geographies += geos.size;
    for (const [seq, parts] of [...bySequence].sort(([a], [b]) => a - b)) {
      const zipRel = `${folder}/${sequenceZipName(vintage, f.usps, seq)}`;
      if (!release.files.includes(zipRel)) throw new InputError(zipRel, `the sequence zip of table ${parts[0]!.table} is missing`);
      const files = extractSequence(path.join(ctx.sourceDir, zipRel), work, vintage, f.usps, seq);
      try {
        const keep = parts.map((p) => ({ ...p, ...(sel.tables[p.table] ? { keep: new Set(sel.tables[p.table]) } : {}) }));
        scanSequence(files, zipRel, seq, lookup.widths.get(seq), geos, keep, (geo, table, cells) => emit(table, geo, geo.geoId, cells));
      } finally {
        fs.rmSync(files.e, { force: true });
        fs.rmSync(files.m, { force: true });
      }
    }
  }
  fs.rmSync(work, { recursive: true, force: true });
  for (const t of tables) {
    const vars = lookup.tables
      .get(t)!
      .flatMap((p) => p.cells.map((c) => c.variable))
      .filter((v) => !sel.tables[t] || sel.tables[t]!.includes(v));
    held(t, vars);
  }
  ctx.log.info(
    `summary file ${dataset} ${vintage} (sequence-based): ${geographies.toLocaleString('en-US')} geographies of ${sel.levels.join(', ')}`,
  );
}
