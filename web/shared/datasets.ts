// The datasets this service serves, as /v1/datasets lists them: the pages read keys, labels and
// years from the registry instead of spelling them out, so a dataset added there shows up here.
import { getJson } from '../explore/api.js';

export interface Dataset {
  dataset: string;
  label: string;
  vintages: number[];
  default_vintage: number;
  /** Vintages this deployment holds values for, per geography level. */
  loaded_vintages?: Record<string, number[]>;
}

let registry: Promise<Dataset[]> | undefined;

/** /v1/datasets, asked once per page. */
export function loadDatasets(): Promise<Dataset[]> {
  registry ??= getJson<{ data: Dataset[] }>('/v1/datasets').then(
    (r) => r.data,
    (e) => ((registry = undefined), Promise.reject(e)),
  );
  return registry;
}

/** "American Community Survey 1-year estimates (…)" → "ACS 1-year": the registry's label, short enough for a selector. */
export function shortLabel(d: Pick<Dataset, 'label' | 'dataset'> | undefined, key = ''): string {
  if (!d) return key;
  const short = d.label
    .replace(/^American Community Survey\b/i, 'ACS')
    .replace(/\s+estimates\b.*$/i, '')
    .trim();
  return short || d.dataset;
}
