// JSON Schemas of the GeoJSON the boundaries and centroids routes stream (RFC 7946), for
// /openapi.json: the bodies are written as they are read from FlatGeobuf, never serialized from a
// schema, so the description is stated here and checked against real answers by Prism
// (test/http/openapi-prism.test.ts).

const position = { type: 'array', minItems: 2, maxItems: 3, items: { type: 'number' }, description: '[longitude, latitude], WGS 84.' };
const ring = { type: 'array', minItems: 4, items: position, description: 'A closed linear ring.' };

const point = { type: 'object', required: ['type', 'coordinates'], properties: { type: { const: 'Point' }, coordinates: position } };
const polygon = {
  type: 'object',
  required: ['type', 'coordinates'],
  properties: { type: { const: 'Polygon' }, coordinates: { type: 'array', items: ring } },
};
const multiPolygon = {
  type: 'object',
  required: ['type', 'coordinates'],
  properties: { type: { const: 'MultiPolygon' }, coordinates: { type: 'array', items: { type: 'array', items: ring } } },
};

/** The properties every boundary and centroid file carries (store/boundaries/manifest.ts, BoundaryProps). */
const properties = {
  type: 'object',
  required: ['geo_key', 'geoid', 'name', 'source'],
  properties: {
    geo_key: { type: 'string', description: '`{type}:{fips}`, as in /v1/data.' },
    geoid: { type: 'string', description: "The Bureau's GEOID." },
    name: { type: 'string' },
    source: { type: 'string', description: 'The file this shape or point comes from.' },
  },
  additionalProperties: { type: 'string' },
};

function feature(geometry: object) {
  return {
    type: 'object',
    required: ['type', 'geometry', 'properties'],
    properties: { type: { const: 'Feature' }, id: { type: 'string' }, geometry, properties },
  };
}

const shape = { oneOf: [polygon, multiPolygon] };

/** A boundary: one geography's Polygon or MultiPolygon. */
export const boundaryFeatureSchema = feature(shape);

/** Every geography of a type, with the `boundary` member naming the file's level, resolution and vintage. */
export const boundaryCollectionSchema = {
  type: 'object',
  required: ['type', 'features'],
  properties: {
    type: { const: 'FeatureCollection' },
    boundary: {
      type: 'object',
      description: 'The file the shapes come from (docs/boundaries.md).',
      required: ['level', 'resolution', 'true_resolution', 'derived', 'boundary_vintage', 'source', 'gaps'],
      properties: {
        level: { type: 'string' },
        resolution: { type: 'string', description: 'The resolution asked for.' },
        true_resolution: { type: 'string', description: 'What the file really is, e.g. `20m`, `500k`, `full (TIGER/Line)`.' },
        derived: { type: 'boolean', description: 'True when the shapes were built here (e.g. metro unions of counties).' },
        boundary_vintage: { type: 'string' },
        source: { type: 'string' },
        gaps: { type: 'array', items: { type: 'string' }, description: 'Known gaps of the file.' },
      },
    },
    features: { type: 'array', items: boundaryFeatureSchema },
  },
};

/** Centroids: Points, with the `centroids` member saying which kind of point the level has. */
export const centroidCollectionSchema = {
  type: 'object',
  required: ['type', 'features', 'centroids'],
  properties: {
    type: { const: 'FeatureCollection' },
    centroids: {
      type: 'object',
      required: ['level', 'kind', 'source', 'vintage', 'derived', 'derivation'],
      properties: {
        level: { type: 'string' },
        kind: { type: 'string', enum: ['population_center', 'internal_point'] },
        source: { type: 'string', description: 'The file the points come from (docs/boundaries.md).' },
        vintage: { type: 'string', description: 'The vintage of the points (also sent as X-Boundary-Vintage).' },
        derived: { type: 'boolean', description: 'True when the points were computed here rather than published as such.' },
        derivation: { type: ['string', 'null'], description: 'How derived points were computed; null when published as such.' },
      },
      additionalProperties: false,
    },
    features: { type: 'array', items: feature(point) },
  },
};
