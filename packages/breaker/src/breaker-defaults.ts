import {
  allToolErrorCodes,
  codeMetadata,
  type ToolErrorCode,
} from '@candor/errors';

/** The codes counted by default: those whose metadata says `countsForBreaker`. */
export const defaultFailureCodes: ReadonlySet<ToolErrorCode> = new Set(
  allToolErrorCodes.filter((code) => codeMetadata[code].countsForBreaker),
);

/**
 * The one set every default breaker shares. Not exported from the package, so a caller mutating
 * the exported copy through a cast cannot change what other breakers count.
 */
export const sharedDefaultCodes: ReadonlySet<ToolErrorCode> = new Set(
  defaultFailureCodes,
);

/**
 * The defaults, sized for agent tools that see a few calls a minute.
 *
 * @example
 * ```ts
 * breakerDefaults.minimumCalls; // 5
 * ```
 */
export const breakerDefaults = Object.freeze({
  timeoutMs: 30_000,
  graceMs: 1_000,
  resetTimeoutMs: 30_000,
  windowMs: 60_000,
  buckets: 6,
  minimumCalls: 5,
  failureRatePct: 50,
  enabled: true,
  // resilience4j's defaults for the same rules; neither changes anything until asked for: one
  // trial call, and no call is slow until `slowCallMs` is given.
  permittedCallsInHalfOpen: 1,
  slowCallRatePct: 100,
});

/** The longest count window: its ring holds one byte a call. */
export const MAX_WINDOW_CALLS = 100_000;

/** Node clamps longer timer delays to 1 ms, which would end every call at once. */
export const MAX_TIMER_MS = 2_147_483_647;
