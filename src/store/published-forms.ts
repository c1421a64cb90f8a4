// The published text of each partition's cells (published-form.json, written by the observations
// step beside the Parquet file), read on first use and kept: the Census-API-compatible endpoint
// renders its answers from the stored values and this (src/domain/census-api/published-text.ts).
import fs from 'node:fs';
import path from 'node:path';
import { PUBLISHED_FORM_FILE, type PublishedForm } from '../domain/census-api/published-text.js';

export class PublishedForms {
  private readonly forms = new Map<string, PublishedForm | null>();

  constructor(private readonly observationsRoot: string) {}

  /** The partition's form; null for a build written before the ETL kept it (or a synthetic build). */
  get(dataset: string, vintage: number, level: string): PublishedForm | null {
    const key = `${dataset}/${vintage}/${level}`;
    let form = this.forms.get(key);
    if (form === undefined) {
      const file = path.join(this.observationsRoot, `dataset=${dataset}`, `vintage=${vintage}`, `level=${level}`, PUBLISHED_FORM_FILE);
      try {
        form = JSON.parse(fs.readFileSync(file, 'utf8')) as PublishedForm;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        form = null;
      }
      this.forms.set(key, form);
    }
    return form;
  }
}
