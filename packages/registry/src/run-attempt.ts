import { runWithDeadline } from '@candor/breaker';
import { describeThrown } from '@candor/errors';
import { ToolResponse } from '@candor/tools';
import { admitCall, breakerFor } from './admit-call.ts';
import { AttemptRun } from './attempt-run.ts';
import {
  type CallRequest,
  type RunPlan,
  type StageResult,
} from './call-types.ts';
import { type RegistrySeam } from './registry-seam.ts';

/**
 * One attempt: the breaker's admission, then one run under one deadline, whose end is recorded
 * on the admission. A value when the tool answered synchronously.
 */
export function runAttempt(
  seam: RegistrySeam,
  call: CallRequest,
  plan: RunPlan,
): StageResult | Promise<StageResult> {
  const breaker = breakerFor(seam, plan.entry);
  // Only a span records it; the state getter is not free.
  const breakerState = call.traced ? breaker?.state : undefined;
  const admission = admitCall(breaker);
  if (admission !== undefined && !admission.admitted) {
    return breakerState === undefined
      ? { stage: 'breaker', response: admission.response }
      : { stage: 'breaker', response: admission.response, breakerState };
  }
  const run = new AttemptRun(call, plan);
  let response: ToolResponse | Promise<ToolResponse>;
  try {
    response = runWithDeadline(run);
  } catch (error: unknown) {
    // runWithDeadline never throws; if it ever did, the admission is still recorded.
    response = ToolResponse.error(
      'INTERNAL_ERROR',
      `The registry failed while running "${call.toolName}": ${describeThrown(error)}`,
    );
  }
  if (response instanceof Promise) {
    return response.then(
      (settled) => run.end(settled, admission, breakerState),
      (error: unknown) =>
        run.end(
          ToolResponse.error(
            'INTERNAL_ERROR',
            `The registry failed while running "${call.toolName}": ${describeThrown(error)}`,
          ),
          admission,
          breakerState,
        ),
    );
  }
  return run.end(response, admission, breakerState);
}
