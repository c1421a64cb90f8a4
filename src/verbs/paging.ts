// The page of a list operation: `limit` (reduced to the plan's maximum by pageSizeFor, never
// refused) and `offset`. One shape for every paginated operation and every transport.
import { z } from 'zod';

export const pageShape = {
  limit: z.number().int().min(1).optional().describe('Page size. Default 50; values above your plan maximum are reduced to it.'),
  offset: z.number().int().min(0).optional().describe('Zero-based index of the first record. Default 0.'),
};
