// Every route module of the service. Adding an endpoint = one import and one call here; the
// module itself uses defineRoute/defineRawRoute from ../route-helpers.js.
import type { FastifyInstance } from 'fastify';
import { healthRoutes } from './health.js';
import { catalogRoutes } from './catalog/index.js';
import { dataRoutes } from './data.js';
import { coverageRoutes } from './coverage.js';
import { accountRoutes } from './account/index.js';
import { geographyRoutes } from './geographies.js';
import { boundaryRoutes } from './boundaries.js';
import { geocodeRoutes } from './geocode.js';
import { censusApiDiscoveryRoutes } from './census-api/discovery.js';
import { censusApiDataRoutes } from './census-api/data.js';

export async function registerRoutes(app: FastifyInstance): Promise<void> {
  healthRoutes(app);
  catalogRoutes(app);
  dataRoutes(app);
  coverageRoutes(app);
  accountRoutes(app);
  geographyRoutes(app);
  boundaryRoutes(app);
  geocodeRoutes(app);
  censusApiDiscoveryRoutes(app);
  censusApiDataRoutes(app);
}
