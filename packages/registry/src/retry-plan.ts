import { type AnyToolDefinition, type ToolResponse } from '@candor/tools';

/** How an idempotent tool's transient failures are retried. */
export interface RetryPlan {
  readonly attempts: number;
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxRetryAfterMs: number;
}

/** The tool's retries with their defaults, or `undefined` for a tool that is not retried. */
export function retryPlan(tool: AnyToolDefinition): RetryPlan | undefined {
  const retry = tool.retry;
  if (retry === undefined || tool.idempotent !== true) return undefined;
  return {
    attempts: retry.attempts ?? 3,
    baseDelayMs: retry.baseDelayMs ?? 200,
    maxDelayMs: retry.maxDelayMs ?? 5_000,
    maxRetryAfterMs: retry.maxRetryAfterMs ?? 10_000,
  };
}

const transientCodes: ReadonlySet<string> = new Set([
  'TIMEOUT',
  'NETWORK_ERROR',
  'RATE_LIMIT',
  'API_ERROR',
]);

/** How long to wait before the next attempt, or `undefined` when this response is final. */
export function retryDelay(
  response: ToolResponse,
  plan: RetryPlan,
  attempt: number,
): number | undefined {
  if (response.status !== 'error') return undefined;
  const info = response.errorInfo;
  if (info.cancelled === true || info.denied === true) return undefined;
  if (!transientCodes.has(info.code)) return undefined;
  // API errors say themselves whether they are worth retrying (a 503 is, a 400 is not).
  if (info.code === 'API_ERROR' && !info.retryable) return undefined;
  if (info.retryAfterMs !== undefined) {
    return info.retryAfterMs <= plan.maxRetryAfterMs
      ? info.retryAfterMs
      : undefined;
  }
  // Full jitter: spreads the retries of many callers instead of syncing them.
  const ceiling = Math.min(
    plan.maxDelayMs,
    plan.baseDelayMs * 2 ** (attempt - 1),
  );
  return Math.random() * ceiling;
}
