// GET /v1/topics and GET /v1/datasets.
import type { FastifyInstance } from 'fastify';
import { listDatasets, listTopics } from '../../../verbs/catalog.js';
import { defineVerbRoute } from '../../verb-route.js';

export function topicDatasetRoutes(app: FastifyInstance) {
  defineVerbRoute(app, {
    url: '/v1/topics',
    summary: 'Variable topics with counts of active variables',
    tags: ['catalog'],
    auth: 'api-key',
    needs: ['catalog'],
    verb: listTopics,
  });

  defineVerbRoute(app, {
    url: '/v1/datasets',
    summary: 'Datasets with their vintages and variable counts',
    tags: ['catalog'],
    auth: 'api-key',
    needs: ['catalog'],
    verb: listDatasets,
  });
}
