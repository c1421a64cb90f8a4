import type { FastifyInstance } from 'fastify';
import { codebookRoutes } from './codebook.js';

export function catalogRoutes(app: FastifyInstance) {
  codebookRoutes(app);
}
