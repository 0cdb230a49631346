import {
  type CallRequest,
  type RunPlan,
  type StageResult,
} from './call-types.ts';
import {
  cancelledBeforeStart,
  cancelledWhileRunning,
} from './cancelled-response.ts';
import { type RegistrySeam } from './registry-seam.ts';
import { retryDelay, type RetryPlan } from './retry-plan.ts';
import { runAttempt } from './run-attempt.ts';

/** A plan without retries: one attempt. */
const once: RetryPlan = Object.freeze({
  attempts: 1,
  baseDelayMs: 0,
  maxDelayMs: 0,
  maxRetryAfterMs: 0,
});

/**
 * An idempotent tool's attempts: retry around breaker around deadline. Each attempt passes the
 * breaker and has its own deadline; a caller's abort stops the retries.
 */
export async function retryAttempts(
  seam: RegistrySeam,
  call: CallRequest,
  plan: RunPlan,
): Promise<StageResult> {
  const { toolName, callId } = call;
  const retry = plan.retry ?? once;
  const signal = call.options.signal;
  let attempts = 0;
  for (;;) {
    if (signal?.aborted === true) {
      return attempts === 0
        ? { stage: 'run', response: cancelledBeforeStart(toolName) }
        : {
            stage: 'run',
            response: cancelledWhileRunning(toolName),
            attempts,
          };
    }
    attempts += 1;
    const result = await runAttempt(seam, call, plan);
    const withAttempts = { ...result, attempts };
    if (attempts >= retry.attempts) return withAttempts;
    const delayMs = retryDelay(result.response, retry, attempts);
    if (delayMs === undefined) return withAttempts;
    seam.logger.debug(
      { tool: toolName, callId, attempt: attempts, delayMs },
      'retrying a transient failure',
    );
    await pause(delayMs, signal);
  }
}

/** Waits `ms`, or less when `signal` aborts. Never rejects. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
