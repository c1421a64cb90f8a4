// Locating the live build. `${DATA_DIR}/current` is a symlink to `builds/<id>`, replaced
// atomically by the ETL, so a reader resolves it once and keeps a consistent build.
import fs from 'node:fs';
import path from 'node:path';

export interface Manifest {
  build_id: string;
  created_at: string;
  synthetic: boolean;
  source: { dir: string; mode: 'local' | 'online' | 'synthetic' };
  steps: Record<
    string,
    {
      version: number;
      inputs: Record<string, { sha256: string; bytes: number; provenance: string }>;
      outputs: string[];
      rows: Record<string, number>;
      notes: string[];
      seconds: number;
      reused: boolean;
    }
  >;
  /**
   * SHA-256 and size of every other file of the build, by path relative to it (etl/output-checksums.ts).
   * Absent in builds made before it: the server then checks what it can without it (docs/operations.md).
   */
  files?: Record<string, { sha256: string; bytes: number }>;
}

export function currentLink(dataDir: string): string {
  return path.join(dataDir, 'current');
}

/** The directory of the live build, or undefined when none has been built. */
export function resolveCurrentBuild(dataDir: string): string | undefined {
  try {
    const real = fs.realpathSync(currentLink(dataDir));
    return fs.existsSync(path.join(real, 'manifest.json')) ? real : undefined;
  } catch {
    return undefined;
  }
}

export function readManifest(buildDir: string): Manifest {
  return JSON.parse(fs.readFileSync(path.join(buildDir, 'manifest.json'), 'utf8')) as Manifest;
}

/** Whether a build's manifest marks it SYNTHETIC (flag or source mode): its values are random. */
export function isSyntheticManifest(m: Pick<Manifest, 'synthetic' | 'source'>): boolean {
  return m.synthetic === true || m.source?.mode === 'synthetic';
}
