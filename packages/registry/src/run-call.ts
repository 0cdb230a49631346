import { type FoundCall, type StageResult } from './call-types.ts';
import { cancelledBeforeStart } from './cancelled-response.ts';
import { positiveOr } from './positive-option.ts';
import { type RegistrySeam } from './registry-seam.ts';
import { retryPlan } from './retry-plan.ts';
import { retryAttempts } from './retry-attempts.ts';
import { runAttempt } from './run-attempt.ts';

// Node clamps longer timer delays to 1 ms, which would time every call out at once.
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The run, once the call may run: its deadline (the call's `timeoutMs`, else the tool's, else
 * the registry's), then one attempt, or an idempotent tool's retried attempts.
 */
export function runCall(
  seam: RegistrySeam,
  call: FoundCall,
  input: unknown,
): StageResult | Promise<StageResult> {
  const entry = call.entry;
  const timeoutMs = Math.min(
    positiveOr(call.options.timeoutMs, entry.tool.timeoutMs ?? seam.timeoutMs),
    MAX_TIMER_MS,
  );
  const retry = retryPlan(entry.tool);
  const plan = { entry, input, timeoutMs, retry };
  if (retry !== undefined) return retryAttempts(seam, call, plan);
  if (call.options.signal?.aborted === true) {
    return { stage: 'run', response: cancelledBeforeStart(call.toolName) };
  }
  return runAttempt(seam, call, plan);
}
