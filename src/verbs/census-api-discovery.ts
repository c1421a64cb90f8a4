// The Census Data API's discovery documents (/data.json, /data/{vintage}/acs/{ds}.json and the
// dataset's variables, groups and geography documents), answered as the bytes to send with a
// strong ETag. Key-less like the Bureau's (tidycensus, censusapi and cenpy fetch them without a
// key), so they must be cheap: each document is rendered once per build and base address and then
// served from memory (docs/census-api.md, "Discovery documents").
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { z } from 'zod';
import { storeOf } from '../context/stores.js';
import type { VerbResult } from '../context/verb-context.js';
import type { CensusTableStore } from '../store/census-tables.js';
import { catalogDocument } from '../domain/census-api/discovery-catalog.js';
import { unknownDataset, unknownGroup, unknownVariable, type DiscoveryError } from '../domain/census-api/discovery-errors.js';
import { geographyDocument } from '../domain/census-api/discovery-geography.js';
import { groupsDocument } from '../domain/census-api/discovery-groups.js';
import { datasetByBureauPath } from '../domain/datasets.js';
import { groupVariablesDocument, variableDocument, variablesDocument } from '../domain/census-api/discovery-variables.js';
import { defineVerb } from './define-verb.js';
import { discoveryMetadata, findServed, servedDatasets } from './census-api-discovery-served.js';

export const DISCOVERY_DOCUMENTS = [
  'catalog',
  'dataset',
  'variables',
  'variable',
  'groups',
  'group',
  'geography',
  'tags',
  'examples',
  'sorts',
] as const;

export interface DiscoveryDocument {
  kind: 'document';
  body: Buffer;
  etag: string;
  /** The body gzipped (made on first use and kept with the document): variables.json is 9 MB as JSON, under 1 MB gzipped. */
  gzipped(): Buffer;
}

export type DiscoveryAnswer = DiscoveryDocument | ({ kind: 'error' } & DiscoveryError);

/** Rendered documents kept per store generation; bounded, since the base address comes from the request's Host. */
const RENDERED_MAX = 256;
const rendered = new WeakMap<CensusTableStore, Map<string, DiscoveryDocument>>();

function render(tables: CensusTableStore, key: string, build: () => unknown): DiscoveryAnswer {
  let docs = rendered.get(tables);
  if (!docs) rendered.set(tables, (docs = new Map()));
  let doc = docs.get(key);
  if (!doc) {
    doc = documentOf(build());
    if (docs.size >= RENDERED_MAX) docs.delete(docs.keys().next().value!);
    docs.set(key, doc);
  }
  return doc;
}

export const censusApiDiscovery = defineVerb({
  name: 'census-api-discovery',
  input: z.object({
    document: z.enum(DISCOVERY_DOCUMENTS),
    /** This service's public base address (no trailing slash): the documents' links point at it. */
    base: z.string().url(),
    vintage: z.string().max(100).optional(),
    dataset: z.string().max(100).optional(),
    /** A variable's or a group's name (variable, group). */
    name: z.string().max(100).optional(),
  }),
  feature: 'census-api',
  // Free of charge and key-less: the answers are rendered once and served from memory.
  cost: { kind: 'lookup' },
  run: async ({ ctx, input }): Promise<VerbResult<DiscoveryAnswer>> => {
    const tables = storeOf(ctx.stores, 'censusTables');
    const served = servedDatasets(storeOf(ctx.stores, 'observations'), tables);
    const { document, base } = input;
    if (document === 'catalog') {
      const modified = storeOf(ctx.stores, 'build').manifest.created_at.slice(0, 10);
      const documentation = `${base}/openapi.json`;
      return { data: render(tables, `catalog ${base}`, () => catalogDocument(served, { base, modified, documentation })) };
    }
    const s = findServed(served, input.dataset ?? '', input.vintage ?? '');
    if (!s) {
      const path = `${input.vintage ?? ''}/${datasetByBureauPath(`acs/${input.dataset ?? ''}`)?.bureauPath ?? input.dataset ?? ''}`;
      return { data: { kind: 'error', ...unknownDataset(path, served) } };
    }
    const meta = await discoveryMetadata(tables, storeOf(ctx.stores, 'observations'), s);
    const key = `${s.dataset}/${s.vintage}`;
    switch (document) {
      case 'dataset': {
        const modified = storeOf(ctx.stores, 'build').manifest.created_at.slice(0, 10);
        const documentation = `${base}/openapi.json`;
        return { data: render(tables, `dataset ${key} ${base}`, () => catalogDocument([s], { base, modified, documentation })) };
      }
      case 'variables':
        return { data: render(tables, `variables ${key}`, () => variablesDocument(s, meta)) };
      case 'groups':
        return { data: render(tables, `groups ${key} ${base}`, () => groupsDocument(s, meta, base)) };
      case 'tags':
      case 'examples':
      case 'sorts':
        // The Bureau's lists of tags, example queries and sort orders: this service curates none.
        return { data: render(tables, `${document} ${key}`, () => ({ [document]: [] })) };
      case 'geography':
        return { data: render(tables, `geography ${key}`, () => geographyDocument(s)) };
      case 'variable': {
        const name = input.name ?? '';
        const doc = variableDocument(s, meta, name);
        // Not kept: one code's document is small and cheap, and names are the client's to vary.
        return { data: doc ? documentOf(doc) : { kind: 'error', ...unknownVariable(name) } };
      }
      case 'group': {
        const name = input.name ?? '';
        const doc = groupVariablesDocument(s, meta, name);
        return { data: doc ? render(tables, `group ${key} ${name}`, () => doc) : { kind: 'error', ...unknownGroup(name) } };
      }
    }
  },
});

function documentOf(doc: unknown): DiscoveryDocument {
  const body = Buffer.from(JSON.stringify(doc));
  let gz: Buffer | undefined;
  return {
    kind: 'document',
    body,
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`,
    gzipped: () => (gz ??= gzipSync(body)),
  };
}
