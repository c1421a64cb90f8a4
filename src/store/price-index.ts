// The price index file behind dollars= (catalog/cpi-u-rs.csv, shipped with the code like the
// catalog sources): read once on first use and kept. A missing or damaged file is not a crash: the
// caller answers 503 for dollars= requests and everything else keeps working.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parsePriceIndex, type PriceIndex } from '../domain/dollars.js';

export const PRICE_INDEX_FILE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../catalog/cpi-u-rs.csv');

let loaded: { file: string; index: PriceIndex | null; error: string | null } | undefined;

/** The index, or null with the reason (logged by the caller, never shown to a client). */
export function loadPriceIndex(file: string = PRICE_INDEX_FILE): { index: PriceIndex | null; error: string | null } {
  if (loaded?.file === file) return loaded;
  let result: { index: PriceIndex | null; error: string | null };
  try {
    result = { index: parsePriceIndex(fs.readFileSync(file, 'utf8')), error: null };
  } catch (err) {
    result = { index: null, error: err instanceof Error ? err.message : String(err) };
  }
  loaded = { file, ...result };
  return result;
}
