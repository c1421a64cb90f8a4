// The page of a list operation: `limit` (reduced to the plan's maximum by pageSizeFor, never
// refused) and `offset`. One shape for every paginated operation and every transport.
import { z } from 'zod';
import { PLANS } from '../domain/plans.js';

/** Every plan's default page size today; the description says so, or that it depends on the plan. */
const defaults = [...new Set(Object.values(PLANS).map((p) => p.limits.pageSizeDefault))];
const DEFAULT_TEXT = defaults.length === 1 ? `Default ${defaults[0]}` : "Default: your plan's";

export const pageShape = {
  limit: z.number().int().min(1).optional().describe(`Page size. ${DEFAULT_TEXT}; values above your plan maximum are reduced to it.`),
  offset: z.number().int().min(0).optional().describe('Zero-based index of the first record. Default 0.'),
};
