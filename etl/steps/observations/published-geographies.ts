// The geographies each partition's files publish, with their NAME as published: written by the
// observations step (which parses every file anyway) and read by the geographies step, which
// makes them the geographies of their vintage (docs/geographies.md, "Geographies from the data").
import fs from 'node:fs/promises';
import path from 'node:path';

export const PUBLISHED_GEOGRAPHIES_FILE = 'observations/geographies.json';

/** `dataset/vintage/level` → [geo key, NAME or null] in first-seen order. */
export type PublishedGeographies = Record<string, Array<[key: string, name: string | null]>>;

/** Gathers one partition's places across its files: the first NAME published for a key wins. */
export class PlaceCollector {
  private readonly names = new Map<string, string | null>();

  add(places: Iterable<[string, string | null]>): void {
    for (const [key, name] of places) {
      const had = this.names.get(key);
      if (had === undefined || (had === null && name !== null)) this.names.set(key, name);
    }
  }

  list(): Array<[string, string | null]> {
    return [...this.names];
  }
}

export async function readPublishedGeographies(buildDir: string): Promise<PublishedGeographies | undefined> {
  try {
    return JSON.parse(await fs.readFile(path.join(buildDir, PUBLISHED_GEOGRAPHIES_FILE), 'utf8')) as PublishedGeographies;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}
