// Why part of a cell is missing, in words a reader can act on: which part (the value, or only its
// margin of error) and why. Two reasons are worded here because the API's meaning for them reads
// as if the whole value were absent ("The value is absent from the source file…" on a cell whose
// estimate is there) or is long: "not loaded" (this deployment has not loaded what the Bureau
// publishes) and "missing in the source file". Every other reason is the API's own meaning.

export interface Annotation {
  code: string;
  meaning: string;
}

export interface Annotated {
  estimate: number | null;
  moe_numeric: number | null;
  estimate_annotation: Annotation | null;
  moe_annotation: Annotation | null;
}

/** The reason as a short clause: "not loaded in this deployment (…)". */
export function whyWords(a: Annotation | null | undefined): string {
  if (!a) return 'not available';
  if (a.code === 'no_data_loaded') return 'not loaded in this deployment (the Census Bureau publishes it)';
  if (a.code === 'missing_in_source') return 'missing in the source file (the redistributed file replaced the Census special value by NA)';
  const m = a.meaning.replace(/\.$/, '');
  return m.charAt(0).toLowerCase() + m.slice(1);
}

/** "Value not loaded…" / "Margin of error missing in the source file…", or null when both are there. */
export function missingText(c: Annotated): string | null {
  if (c.estimate === null) return `No value: ${whyWords(c.estimate_annotation)}.`;
  if (c.moe_numeric === null) return `No margin of error: ${whyWords(c.moe_annotation)}.`;
  return null;
}

/** A few words for a significance mark: "Texas's value not loaded", "Travis County's MOE missing in source". */
export function untestedWords(cells: { name: string; cell: Annotated | undefined }[]): string {
  for (const { name, cell } of cells)
    if (cell && cell.estimate === null) return `${name} has no value: ${shortWhy(cell.estimate_annotation)}`;
  for (const { name, cell } of cells)
    if (cell && cell.moe_numeric === null) return `${name} has no margin of error: ${shortWhy(cell.moe_annotation)}`;
  return 'no margin of error';
}

function shortWhy(a: Annotation | null | undefined): string {
  if (!a) return 'not available';
  if (a.code === 'no_data_loaded') return 'not loaded';
  if (a.code === 'missing_in_source') return 'missing in source';
  if (a.code === 'controlled') return 'controlled by the Bureau, no sampling error';
  return whyWords(a);
}
