// /data.json and /data/{vintage}/acs/{ds}.json: the datasets this service serves, as the Bureau's
// DCAT-US (Project Open Data v1.1) catalog. Clients read it: cenpy keys datasets by the part of
// `identifier` after `id/` (ACSDT1Y2018) and fetches every `c_…Link`; censusapi's listCensusApis
// flattens `dataset` and selects title, c_vintage, temporal, spatial, distribution.accessURL,
// modified, description and contactPoint.hasEmail, so each entry carries all of them. Every URL
// points at this service.
import { datasetSpec, referencePeriod } from '../datasets.js';
import { accessUrl, datasetIdentifier, datasetPath, type ServedDataset } from './discovery-served.js';

export interface CatalogEntry {
  '@type': 'dcat:Dataset';
  title: string;
  description: string;
  c_vintage: number;
  c_dataset: string[];
  c_geographyLink: string;
  c_variablesLink: string;
  c_groupsLink: string;
  c_tagsLink: string;
  c_examplesLink: string;
  c_sorts_url: string;
  c_documentationLink: string;
  c_isAggregate: true;
  c_isCube: true;
  c_isAvailable: true;
  identifier: string;
  distribution: Array<{
    '@type': 'dcat:Distribution';
    accessURL: string;
    description: string;
    format: 'API';
    mediaType: string;
    title: string;
  }>;
  accessLevel: 'public';
  bureauCode: string[];
  programCode: string[];
  keyword: string[];
  license: string;
  modified: string;
  spatial: string;
  temporal: string;
  contactPoint: { fn: string; hasEmail: string | null };
  publisher: Organization;
  references: string[];
}

/** The Bureau's publisher chain: U.S. Census Bureau ⊂ U.S. Department Of Commerce ⊂ U.S. Government. */
export interface Organization {
  '@type': 'org:Organization';
  name: string;
  subOrganizationOf?: Organization;
}

const PUBLISHER: Organization = {
  '@type': 'org:Organization',
  name: 'U.S. Census Bureau',
  subOrganizationOf: {
    '@type': 'org:Organization',
    name: 'U.S. Department Of Commerce',
    subOrganizationOf: { '@type': 'org:Organization', name: 'U.S. Government' },
  },
};

export interface CatalogDocument {
  '@context': string;
  '@id': string;
  '@type': 'dcat:Catalog';
  conformsTo: string;
  describedBy: string;
  dataset: CatalogEntry[];
}

export interface CatalogContext {
  /** This service's public base address, without a trailing slash. */
  base: string;
  /** The build's creation date (YYYY-MM-DD): when these datasets last changed here. */
  modified: string;
  /** Where docs/census-api.md is published, or this service's own base. */
  documentation: string;
}

function description(s: ServedDataset): string {
  const years = referencePeriod(s.dataset, s.vintage);
  return (
    `${datasetSpec(s.dataset).catalog.estimates} (${years}), Detailed Tables, ` +
    `as published by the U.S. Census Bureau and served by Census Data Service: ${s.tables.length} tables at the levels ` +
    `listed in geography.json.`
  );
}

function entry(s: ServedDataset, ctx: CatalogContext): CatalogEntry {
  const root = accessUrl(ctx.base, s);
  const from = s.vintage - datasetSpec(s.dataset).periodYears + 1;
  return {
    '@type': 'dcat:Dataset',
    title: datasetSpec(s.dataset).catalog.title,
    description: description(s),
    c_vintage: s.vintage,
    c_dataset: datasetPath(s.dataset).split('/'),
    c_geographyLink: `${root}/geography.json`,
    c_variablesLink: `${root}/variables.json`,
    c_groupsLink: `${root}/groups.json`,
    // The Bureau's tags, examples and sorts documents: served here as empty lists (none curated).
    c_tagsLink: `${root}/tags.json`,
    c_examplesLink: `${root}/examples.json`,
    c_sorts_url: `${root}/sorts.json`,
    c_documentationLink: ctx.documentation,
    c_isAggregate: true,
    c_isCube: true,
    c_isAvailable: true,
    identifier: `${ctx.base}/data/id/${datasetIdentifier(s.dataset, s.vintage)}`,
    distribution: [
      {
        '@type': 'dcat:Distribution',
        accessURL: root,
        description: 'API endpoint',
        format: 'API',
        mediaType: 'application/json',
        title: 'API endpoint',
      },
    ],
    accessLevel: 'public',
    // The Bureau's own codes (Department of Commerce, Census Bureau): the figures are its publication.
    bureauCode: ['006:07'],
    programCode: ['006:004'],
    keyword: [],
    license: 'https://creativecommons.org/publicdomain/zero/1.0/',
    modified: ctx.modified,
    spatial: 'United States',
    temporal: `${from}/${s.vintage}`,
    // The operator of a self-hosted service has no address we could know; null rather than a made-up one.
    contactPoint: { fn: 'Census Data Service', hasEmail: null },
    publisher: PUBLISHER,
    references: [ctx.documentation],
  };
}

/** The catalog of `served` (every dataset for /data.json, one for /data/{vintage}/acs/{ds}.json). */
export function catalogDocument(served: ServedDataset[], ctx: CatalogContext): CatalogDocument {
  return {
    '@context': 'https://project-open-data.cio.gov/v1.1/schema/catalog.jsonld',
    '@id': `${ctx.base}/data.json`,
    '@type': 'dcat:Catalog',
    conformsTo: 'https://project-open-data.cio.gov/v1.1/schema',
    describedBy: 'https://project-open-data.cio.gov/v1.1/schema/catalog.json',
    dataset: served.map((s) => entry(s, ctx)),
  };
}
