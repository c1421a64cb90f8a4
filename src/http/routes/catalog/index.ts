import type { FastifyInstance } from 'fastify';
import { codebookRoutes } from './codebook.js';
import { tableRoutes } from './tables.js';
import { topicDatasetRoutes } from './topics-datasets.js';
import { variableRoutes } from './variables.js';

export function catalogRoutes(app: FastifyInstance) {
  variableRoutes(app);
  tableRoutes(app);
  topicDatasetRoutes(app);
  codebookRoutes(app);
}
