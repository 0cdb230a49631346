import { breakerDefaults } from '@candor/breaker';
import type CircuitBreaker from 'opossum';

/**
 * The options a bare opossum breaker gets: the same numbers as Candor's default breaker, and
 * opossum's own defaults for everything else, as its README shows it. Nothing is turned off to
 * make Candor look better (opossum's rolling percentiles and snapshots stay on).
 */
export function opossumOptions(): CircuitBreaker.Options {
  return {
    timeout: breakerDefaults.timeoutMs + breakerDefaults.graceMs,
    resetTimeout: breakerDefaults.resetTimeoutMs,
    rollingCountTimeout: breakerDefaults.windowMs,
    rollingCountBuckets: breakerDefaults.buckets,
    volumeThreshold: breakerDefaults.minimumCalls,
    errorThresholdPercentage: breakerDefaults.failureRatePct,
  };
}
