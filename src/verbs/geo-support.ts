// Pieces shared by the geography operations: the store lookup, the vintage default and the
// public shape of a geography in responses.
import { z } from 'zod';
import { DEFAULT_DATASET, latestVintage } from '../domain/datasets.js';
import type { GeographyRecord } from '../store/geographies.js';

/** Latest ACS vintage the service publishes; the default when a request names none. */
export const LATEST_VINTAGE = latestVintage(DEFAULT_DATASET);

/** The `vintage` of the geography operations: whose definitions to use. */
export const vintageField = z
  .number()
  .int()
  .min(2005)
  .max(2100)
  .optional()
  .describe('ACS vintage whose geography definitions to use; default: the latest.');

/** A geography as operations return it (the record plus a compact hierarchy when asked for). */
export interface GeographyView {
  geo_key: string;
  type: string;
  fips: string;
  name: string;
  parent_key: string | null;
  state_keys: string[];
  population: number | null;
  population_source: string;
  point: GeographyRecord['point'];
  definition: string;
  valid_from: number;
  valid_to: number | null;
  metro?: GeographyRecord['metro'];
}

export function viewOf(r: GeographyRecord): GeographyView {
  const { key, ...rest } = r;
  return { geo_key: key, ...rest };
}

/** The hint for a page that starts past the last result. */
export function pastEnd(offset: number, total: number): string {
  return `offset ${offset} is past the last of ${total} results; the last page starts at offset ${Math.max(0, total - 1)} or earlier.`;
}
