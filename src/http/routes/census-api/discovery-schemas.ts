// JSON Schemas of the Census Data API discovery documents as this service writes them
// (src/domain/census-api/discovery-*.ts), for /openapi.json: what a generated client types and a
// validating proxy checks. Each mirrors its document's TypeScript interface.

const str = { type: 'string' };
const strings = { type: 'array', items: str };

/** One variable of variables.json / groups/{X}.json (VariableEntry). */
const variableEntry = {
  type: 'object',
  required: ['label', 'concept', 'group', 'limit'],
  properties: {
    label: str,
    concept: str,
    predicateType: {
      type: 'string',
      description: 'int, float or string (annotations, NAME, GEO_ID); fips-for, fips-in, ucgid for the predicates.',
    },
    group: { type: 'string', description: 'The table, or N/A for predicates, NAME and GEO_ID.' },
    limit: { type: 'integer' },
    predicateOnly: { type: 'boolean' },
    hasGeoCollectionSupport: { type: 'boolean' },
    attributes: { type: 'string', description: "An estimate's annotation, margin and margin's annotation, comma-separated." },
  },
};

const variablesDocument = {
  type: 'object',
  required: ['variables'],
  properties: { variables: { type: 'object', additionalProperties: variableEntry } },
};

const variableDocument = {
  ...variableEntry,
  required: ['name', ...variableEntry.required],
  properties: { name: str, ...variableEntry.properties },
};

const groupsDocument = {
  type: 'object',
  required: ['groups'],
  properties: {
    groups: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'description', 'variables', 'universe '],
        properties: {
          name: str,
          description: str,
          variables: { type: 'string', description: 'The address of the group document.' },
          'universe ': { type: 'string', description: "The table's universe (the key ends in a space, as the Bureau's does)." },
        },
      },
    },
  },
};

const geographyDocument = {
  type: 'object',
  required: ['fips'],
  properties: {
    fips: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name', 'geoLevelDisplay', 'referenceDate'],
        properties: {
          name: str,
          geoLevelDisplay: str,
          referenceDate: str,
          requires: strings,
          wildcard: strings,
          optionalWithWCFor: str,
        },
      },
    },
  },
};

const organization = (name: string, parent?: Record<string, unknown>): Record<string, unknown> => ({
  type: 'object',
  required: ['@type', 'name', ...(parent ? ['subOrganizationOf'] : [])],
  properties: { '@type': { const: 'org:Organization' }, name: { const: name }, ...(parent ? { subOrganizationOf: parent } : {}) },
});

/** The Bureau's publisher chain, as its data.json writes it. */
const publisher = organization('U.S. Census Bureau', organization('U.S. Department Of Commerce', organization('U.S. Government')));

/** One dataset of data.json (CatalogEntry). */
const catalogEntry = {
  type: 'object',
  required: [
    '@type',
    'title',
    'description',
    'c_vintage',
    'c_dataset',
    'c_geographyLink',
    'c_variablesLink',
    'c_groupsLink',
    'c_tagsLink',
    'c_examplesLink',
    'c_sorts_url',
    'c_documentationLink',
    'c_isAggregate',
    'c_isCube',
    'c_isAvailable',
    'identifier',
    'distribution',
    'accessLevel',
    'bureauCode',
    'programCode',
    'keyword',
    'license',
    'modified',
    'spatial',
    'temporal',
    'contactPoint',
    'publisher',
    'references',
  ],
  properties: {
    '@type': { const: 'dcat:Dataset' },
    title: str,
    description: str,
    c_vintage: { type: 'integer' },
    c_dataset: strings,
    c_geographyLink: str,
    c_variablesLink: str,
    c_groupsLink: str,
    c_tagsLink: str,
    c_examplesLink: str,
    c_sorts_url: str,
    c_documentationLink: str,
    c_isAggregate: { const: true },
    c_isCube: { const: true },
    c_isAvailable: { const: true },
    identifier: str,
    distribution: {
      type: 'array',
      items: {
        type: 'object',
        required: ['@type', 'accessURL', 'description', 'format', 'mediaType', 'title'],
        properties: {
          '@type': { const: 'dcat:Distribution' },
          accessURL: str,
          description: str,
          format: { const: 'API' },
          mediaType: str,
          title: str,
        },
      },
    },
    accessLevel: { const: 'public' },
    bureauCode: strings,
    programCode: strings,
    keyword: strings,
    license: str,
    modified: str,
    spatial: str,
    temporal: str,
    contactPoint: {
      type: 'object',
      required: ['fn', 'hasEmail'],
      properties: { fn: str, hasEmail: { type: ['string', 'null'] } },
    },
    publisher,
    references: strings,
  },
};

const catalogDocument = {
  type: 'object',
  required: ['@context', '@id', '@type', 'conformsTo', 'describedBy', 'dataset'],
  properties: {
    '@context': str,
    '@id': str,
    '@type': { const: 'dcat:Catalog' },
    conformsTo: str,
    describedBy: str,
    dataset: { type: 'array', items: catalogEntry },
  },
};

/** tags.json, examples.json and sorts.json: the Bureau's lists, empty here (this service curates none). */
const listDocument = (member: string) => ({
  type: 'object',
  required: [member],
  properties: { [member]: { type: 'array', items: {} } },
});

export const DISCOVERY_SCHEMAS = {
  catalog: catalogDocument,
  dataset: catalogDocument,
  variables: variablesDocument,
  variable: variableDocument,
  groups: groupsDocument,
  group: variablesDocument,
  geography: geographyDocument,
  tags: listDocument('tags'),
  examples: listDocument('examples'),
  sorts: listDocument('sorts'),
} as const;
