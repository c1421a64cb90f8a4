// GET /v1/topics and GET /v1/datasets.
import { z } from 'zod';
import type { FastifyInstance } from 'fastify';
import { listDatasets, listTopics } from '../../../verbs/catalog.js';
import { defineRoute } from '../../route-helpers.js';
import { datasetSchema, topicWithCountSchema } from './schemas.js';

export function topicDatasetRoutes(app: FastifyInstance) {
  defineRoute(app, {
    url: '/v1/topics',
    summary: 'Variable topics with counts of active variables',
    tags: ['catalog'],
    auth: 'api-key',
    needs: ['catalog'],
    data: z.array(topicWithCountSchema),
    handler: ({ ctx }) => listTopics({ ctx }),
  });

  defineRoute(app, {
    url: '/v1/datasets',
    summary: 'Datasets with their vintages and variable counts',
    tags: ['catalog'],
    auth: 'api-key',
    needs: ['catalog'],
    data: z.array(datasetSchema),
    handler: ({ ctx }) => listDatasets({ ctx }),
  });
}
