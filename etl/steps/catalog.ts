// Step `catalog`: compile the reviewed catalog source (repo catalog/*.json) against the ACS
// metadata into catalog/catalog.json plus the codebook downloads.
//
// The catalog source lives in the repo, not in the census source tree the orchestrator
// checksums, so an edit to it would not be noticed by input checksums. The step's `version`
// therefore folds in a hash of the catalog files (read when the module loads): any edit to the
// catalog changes the version and forces this step to rebuild. The same bytes are re-read and
// checked at run time, so a file changed between load and run stops the build instead of
// producing a catalog whose version lies.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError, type EtlStep, type StepContext, type StepResult } from '../step.js';
import { codebookCsv, codebookRows } from './catalog/codebook.js';
import { checkCodesExist, compileCatalog } from './catalog/compile.js';
import { knownFromLoaded, listMetadataInputs, loadCodeVintages, loadKnownCodes } from './catalog/metadata.js';
import { codesOf, readCatalogSource, type CatalogSource } from './catalog/source.js';

/** Bump when this step's code changes what it writes. */
// 3: a code of a table no loaded list covers is no_data_loaded, not not_in_vintage.
const CODE_VERSION = 3;

export const REPO_CATALOG_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../catalog');

function contentHash(files: CatalogSource['files']): number {
  const h = createHash('sha256');
  for (const f of [...files].sort((a, b) => a.name.localeCompare(b.name))) h.update(f.name).update('\0').update(f.content);
  return parseInt(h.digest('hex').slice(0, 8), 16);
}

export function createCatalogStep(catalogDir: string = REPO_CATALOG_DIR): EtlStep {
  let loadedHash: number | undefined;
  try {
    loadedHash = contentHash(readCatalogSource(catalogDir).files);
  } catch {
    loadedHash = undefined; // an invalid catalog is reported by run(), with file and entry
  }
  return {
    name: 'catalog',
    // CODE_VERSION in the high bits, catalog content hash (32 bits) in the low bits.
    version: CODE_VERSION * 2 ** 32 + (loadedHash ?? 0),
    outputs: ['catalog'],
    listInputs: (sourceDir) => listMetadataInputs(sourceDir),
    async run(ctx: StepContext): Promise<StepResult> {
      const source = readCatalogSource(catalogDir);
      if (loadedHash !== undefined && contentHash(source.files) !== loadedHash) {
        throw new InputError('catalog/', 'catalog files changed after the build started; run the build again');
      }
      // A mistyped code fails before the metadata is loaded; without the availability file (a
      // tree from downloads only), the loaded metadata vouches for the tables it describes.
      const known = await loadKnownCodes(ctx.sourceDir);
      if (known) checkCodesExist(source, known);
      const codes = new Set(source.variables.flatMap(codesOf));
      const meta = await loadCodeVintages(ctx.sourceDir, codes);
      if (!known) {
        const loaded = knownFromLoaded(meta);
        checkCodesExist(source, loaded.codes, loaded.tables);
      }
      const compiled = compileCatalog(source, meta);

      const dir = path.join(ctx.outDir, 'catalog');
      await fs.mkdir(dir, { recursive: true });
      const rows = codebookRows(compiled);
      const body = ctx.synthetic ? { ...compiled, synthetic: true } : compiled;
      await fs.writeFile(path.join(dir, 'catalog.json'), JSON.stringify(body));
      await fs.writeFile(
        path.join(dir, 'codebook.json'),
        JSON.stringify(ctx.synthetic ? { synthetic: true, variables: rows } : rows, null, 1),
      );
      await fs.writeFile(path.join(dir, 'codebook.csv'), codebookCsv(rows));

      const notes: string[] = [];
      let nc = 0;
      for (const v of compiled.variables) nc += v.not_comparable.acs1.length + v.not_comparable.acs5.length;
      notes.push(`${compiled.variables.length} variables; ${nc} variable-vintages withheld as not comparable`);
      ctx.log.info(`catalog: ${notes[0]}`);
      return { rows: { 'catalog/variables': compiled.variables.length, 'catalog/topics': compiled.topics.length }, notes };
    },
  };
}

export const catalogStep = createCatalogStep();
