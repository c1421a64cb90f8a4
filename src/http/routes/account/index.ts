// The account and billing endpoints (docs/accounts.md). Registered by accountRoutes(app) from
// src/http/routes/index.ts; authentication is the dashboard token seam (auth: 'user-token').
import type { FastifyInstance } from 'fastify';
import { billingRoutes } from './billing.js';
import { keyRoutes } from './keys.js';
import { profileRoutes } from './profile.js';
import { regionRoutes } from './regions.js';
import { tosRoutes } from './tos.js';
import { usageRoutes } from './usage.js';

export function accountRoutes(app: FastifyInstance) {
  profileRoutes(app);
  keyRoutes(app);
  regionRoutes(app);
  usageRoutes(app);
  tosRoutes(app);
  billingRoutes(app);
}
