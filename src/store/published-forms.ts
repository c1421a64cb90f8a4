// The published text of each partition's cells (published-form.json, written by the observations
// step beside the Parquet file): the Census-API-compatible endpoint renders its answers from the
// stored values and this (src/domain/census-api/published-text.ts).
//
// It is trusted no more than the partition's other files: read whole and checked against the
// manifest's checksum (FileIntegrity.read, the bytes parsed are the bytes hashed), and kept with
// the identity (inode, size, mtime) of the file it was read from, so a file replaced since (a
// partition swapped and swapped back) is read and checked again instead of answering from the
// form of another file. A damaged one answers the partition's 503, and /health names it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { PUBLISHED_FORM_FILE, type PublishedForm } from '../domain/census-api/published-text.js';
import { partitionUnavailableError } from './partition-guard.js';
import { DamagedFile, identityOf, isRacy, type FileIdentity, type FileIntegrity } from './file-integrity.js';

export class PublishedForms {
  private readonly forms = new Map<string, { form: PublishedForm | null; identity: FileIdentity }>();

  constructor(
    private readonly buildDir: string,
    /** The build's checksums; without it (tests, benchmarks) the file is read as it is. */
    private readonly integrity?: FileIntegrity,
  ) {}

  /**
   * The partition's form; null for a build written before the ETL kept it (or a synthetic build).
   * A stat() when the file is unchanged since it was last read.
   */
  async get(dataset: string, vintage: number, level: string): Promise<PublishedForm | null> {
    const key = `${dataset}/${vintage}/${level}`;
    const rel = `observations/dataset=${dataset}/vintage=${vintage}/level=${level}/${PUBLISHED_FORM_FILE}`;
    const file = path.join(this.buildDir, rel);
    const identity = identityOf(file);
    const kept = this.forms.get(key);
    if (kept && kept.identity === identity && !isRacy(identity)) return kept.form;
    let form: PublishedForm | null;
    try {
      const bytes = this.integrity ? await this.integrity.read(rel) : await fs.readFile(file);
      form = JSON.parse(bytes.toString('utf8')) as PublishedForm;
    } catch (e) {
      this.forms.delete(key);
      if (e instanceof DamagedFile) throw partitionUnavailableError(key, e);
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      form = null;
    }
    // The identity of the bytes read (read() re-reads a file that changed while it was read).
    this.forms.set(key, { form, identity: this.integrity?.verifiedIdentity(rel) ?? identity });
    return form;
  }
}
