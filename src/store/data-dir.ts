// Locating the live build. `${DATA_DIR}/current` is a symlink to `builds/<id>`, replaced
// atomically by the ETL, so a reader resolves it once and keeps a consistent build.
import { createHash } from 'node:crypto';
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
  /**
   * The manifest's own SHA-256 (sealManifest): every other file is checked against the manifest,
   * so a same-size change to it (a digit of a row count, a letter of a path) must be seen too.
   * Absent in builds made before it (they are read as they are; docs/operations.md).
   */
  manifest_sha256?: string;
}

/** A manifest that parses but does not hold: its seal differs, or it is not a manifest's shape. */
export class ManifestInvalid extends Error {}

const SEAL_FIELD = '"manifest_sha256": "';
const UNSEALED = '0'.repeat(64);

/**
 * The text of `manifest` as written to manifest.json, sealed: written with manifest_sha256 set to
 * 64 zeros, hashed, and the zeros replaced by that hash (same length, so the seal covers every
 * other byte of the file). parseManifest undoes this to check it.
 */
export function sealManifest(manifest: Manifest): string {
  const text = `${JSON.stringify({ ...manifest, manifest_sha256: UNSEALED }, null, 1)}\n`;
  const sha = createHash('sha256').update(text).digest('hex');
  return text.replace(`${SEAL_FIELD}${UNSEALED}"`, `${SEAL_FIELD}${sha}"`);
}

/** The manifest in `bytes`, checked: valid JSON of a manifest's shape whose seal (when it has one) matches. */
export function parseManifest(bytes: Buffer): Manifest {
  const m = JSON.parse(bytes.toString('utf8')) as Manifest;
  if (!m || typeof m !== 'object' || typeof m.build_id !== 'string' || !m.steps || typeof m.steps !== 'object')
    throw new ManifestInvalid('not a build manifest (damaged)');
  if (m.manifest_sha256 === undefined) return m;
  const at = bytes.indexOf(SEAL_FIELD);
  if (at < 0 || at !== bytes.lastIndexOf(SEAL_FIELD) || typeof m.manifest_sha256 !== 'string')
    throw new ManifestInvalid('its seal (manifest_sha256) is unreadable (damaged)');
  const unsealed = Buffer.from(bytes);
  unsealed.write(UNSEALED, at + SEAL_FIELD.length, 'latin1');
  if (createHash('sha256').update(unsealed).digest('hex') !== m.manifest_sha256)
    throw new ManifestInvalid('checksum differs from its seal, manifest_sha256 (damaged)');
  return m;
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

/** The directory `current` links to, whether or not it holds a manifest (undefined when there is no such directory). */
export function resolveLinkedBuild(dataDir: string): string | undefined {
  try {
    const real = fs.realpathSync(currentLink(dataDir));
    return fs.statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

export function readManifest(buildDir: string): Manifest {
  return parseManifest(fs.readFileSync(path.join(buildDir, 'manifest.json')));
}

/** Whether a build's manifest marks it SYNTHETIC (flag or source mode): its values are random. */
export function isSyntheticManifest(m: Pick<Manifest, 'synthetic' | 'source'>): boolean {
  return m.synthetic === true || m.source?.mode === 'synthetic';
}
