import { CallAbort, type ToolResponse } from '@candor/tools';
import { type Admission, type Refusal } from './admission.ts';
import { breakerResponses } from './breaker-responses.ts';
import { type BreakerState } from './breaker-state.ts';
import { checkedResponse } from './checked-response.ts';
import { type ExecuteOptions, readSignal } from './execute-options.ts';
import { runWithDeadline } from './run-with-deadline.ts';

/** What {@link executeCall} needs of its breaker. */
export interface ExecutingBreaker {
  readonly name: string;
  readonly state: BreakerState;
  /** The call's one deadline: the tool's budget plus grace. */
  readonly deadlineMs: number;
  admit(): Admission | Refusal;
}

/**
 * `ToolBreaker.execute`: admit, run once under the deadline, record. Never rejects (see
 * `ToolBreaker.execute`).
 */
export function executeCall(
  breaker: ExecutingBreaker,
  run: (abort: CallAbort) => Promise<ToolResponse>,
  options: ExecuteOptions,
): Promise<ToolResponse> {
  if (typeof run !== 'function') {
    return Promise.resolve(
      breakerResponses.misuse(
        breaker.name,
        `execute() needs a function that runs the tool, got ${typeof run}`,
      ),
    );
  }
  // A shut-down breaker refuses (and counts the refusal) whatever the signal says, unread.
  const signal = breaker.state === 'shutdown' ? undefined : readSignal(options);
  if (signal?.aborted === true) {
    return Promise.resolve(breakerResponses.cancelled(breaker.name, false));
  }
  const admission = breaker.admit();
  if (!admission.admitted) return Promise.resolve(admission.response);
  return runAdmitted(breaker, run, { signal, admission });
}

/**
 * Runs an admitted call once under its deadline and records how it ended, whatever happens (a
 * call admitted and never recorded would hold a half-open breaker's trial slot forever). A throw
 * becomes the response `classifyError` gives, a value that is not a ToolResponse an
 * INTERNAL_ERROR, the deadline a TIMEOUT.
 */
async function runAdmitted(
  breaker: ExecutingBreaker,
  run: (abort: CallAbort) => Promise<ToolResponse>,
  call: { signal: AbortSignal | undefined; admission: Admission },
): Promise<ToolResponse> {
  const { name: toolName, deadlineMs } = breaker;
  const abort = new CallAbort();
  const unfollow = abort.follow(call.signal);
  let timedOut = false;
  let response: ToolResponse = breakerResponses.misuse(
    toolName,
    'the call ended without a response',
  );
  try {
    response = await runWithDeadline({
      toolName,
      timeoutMs: deadlineMs,
      abort,
      run,
      accept: (value) => checkedResponse(toolName, value),
      timedOut: () => {
        timedOut = true;
        return breakerResponses.backstopTimeout(toolName, deadlineMs);
      },
      cancelled: () => breakerResponses.cancelled(toolName, true),
    });
  } finally {
    unfollow();
    call.admission.record(response, { timedOut });
  }
  return response;
}
