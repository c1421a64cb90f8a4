import type { FastifyInstance } from 'fastify';
import { codebookRoutes } from './codebook.js';
import { topicDatasetRoutes } from './topics-datasets.js';
import { variableRoutes } from './variables.js';

export function catalogRoutes(app: FastifyInstance) {
  variableRoutes(app);
  topicDatasetRoutes(app);
  codebookRoutes(app);
}
