// The DISABLED_FEATURES kill switch, one rule for every transport: a switched-off feature answers
// 503 feature-unavailable for every plan, over REST and MCP alike.
import type { Config } from '../config.js';
import { AppError } from '../domain/errors.js';

export function assertFeatureEnabled(config: Pick<Config, 'DISABLED_FEATURES'>, feature: string | undefined): void {
  if (!feature || !config.DISABLED_FEATURES.includes(feature)) return;
  const detail =
    feature === 'csv'
      ? 'CSV export is temporarily disabled; retry with backoff or request JSON.'
      : `The ${feature} feature is temporarily disabled; retry with backoff.`;
  throw new AppError('feature-unavailable', detail, { extensions: { feature } });
}
