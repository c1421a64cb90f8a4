// Schemas whose shape follows the dataset registry (domain/datasets.ts): the `dataset` enum and
// records keyed by dataset. Built when the verbs' modules load, so a dataset registered before the
// app is built appears in validation, the OpenAPI description and the MCP tools alike.
import { z } from 'zod';
import { DEFAULT_DATASET, datasetKeys, datasetSpec, isBuiltInDataset } from '../domain/datasets.js';

/** The registered dataset keys as a zod enum (the OpenAPI `enum`). */
export function datasetEnum() {
  return z.enum(datasetKeys() as [string, ...string[]]);
}

/** The `dataset` parameter's description: every registered dataset, the default first. */
export function datasetParamDescription(): string {
  return datasetKeys()
    .map(
      (k) =>
        `${k} (${k === DEFAULT_DATASET ? 'default, ' : ''}${datasetSpec(k).shortLabel}${datasetSpec(k).populationThreshold ? `, areas of ${datasetSpec(k).populationThreshold!.toLocaleString('en-US')}+ only` : ''})`,
    )
    .join(', ');
}

/**
 * An object with one property per registered dataset: required for the built-in ones, optional
 * for a dataset registered later (the curated catalogue and older builds do not know it).
 */
export function perDatasetSchema<T extends z.ZodTypeAny>(item: T) {
  return z.object(Object.fromEntries(datasetKeys().map((k) => [k, isBuiltInDataset(k) ? item : item.optional()])));
}

/** The registered datasets that pool several years per vintage (acs5), for the overlap warning. */
export function pooledDatasets(): string {
  return datasetKeys()
    .filter((k) => datasetSpec(k).periodYears > 1)
    .map((k) => `${k} (${datasetSpec(k).periodYears} years per vintage)`)
    .join(', ');
}

/** The registered datasets published only above a population threshold (acs1), for the small-area note. */
export function thresholdDatasets(): string {
  return datasetKeys()
    .filter((k) => datasetSpec(k).populationThreshold)
    .join(', ');
}
