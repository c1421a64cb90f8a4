// What the geocoders read from a build's boundaries: the index, its files (checked against the
// manifest) and the centroid files. BoundaryStore (../boundaries.ts) provides it and loads the
// geocoders over itself, so the geocoders name this interface rather than the store class.
import type { FgbFile } from './fgb-file.js';
import type { BoundaryIndex, BoundaryLevel, CentroidFileEntry } from './manifest.js';

export interface BoundaryFiles {
  /** The boundaries/ directory of the build. */
  readonly dir: string;
  readonly index: BoundaryIndex;
  /** The bytes of `rel` (relative to boundaries/), checked against the manifest (the bytes hashed); else 503. */
  readFile(rel: string): Promise<Buffer>;
  /** A FlatGeobuf file of the build, opened once. */
  file(rel: string): Promise<FgbFile>;
  centroidEntry(level: BoundaryLevel): CentroidFileEntry | undefined;
}
