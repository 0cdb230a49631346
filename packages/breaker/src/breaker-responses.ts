import { type ErrorResponse, ToolResponse } from '@candor/tools';

function seconds(ms: number): string {
  const value = Math.ceil(ms / 1000);
  return value === 1 ? '1 second' : `${value} seconds`;
}

/**
 * The responses a breaker makes up itself. Each says what happened to the call in words a model
 * can act on; none carries a stack trace.
 */
export const breakerResponses = {
  /** Refused while open: the tool was not run. */
  open(tool: string, retryAfterMs: number): ErrorResponse {
    return ToolResponse.error(
      'CIRCUIT_OPEN',
      `Tool "${tool}" is temporarily disabled after repeated failures and was not run; try again in ${seconds(retryAfterMs)}.`,
      { retryAfterMs, details: { tool, state: 'open' } },
    );
  },

  /** Refused while half-open because the one trial call is still running. */
  trialInFlight(tool: string): ErrorResponse {
    return ToolResponse.error(
      'CIRCUIT_OPEN',
      `Tool "${tool}" is recovering from repeated failures: one trial call is testing it, so this call was not run; try again shortly.`,
      { retryAfterMs: 0, details: { tool, state: 'half_open' } },
    );
  },

  /** Refused because an operator forced the breaker open. */
  forcedOpen(tool: string): ErrorResponse {
    return ToolResponse.error(
      'CIRCUIT_OPEN',
      `Tool "${tool}" has been switched off for now (circuit forced open) and was not run.`,
      { details: { tool, state: 'open', forced: true } },
    );
  },

  /** Refused because the breaker was shut down; it will not come back. */
  shutDown(tool: string): ErrorResponse {
    return ToolResponse.error(
      'CIRCUIT_OPEN',
      `The circuit breaker for tool "${tool}" has been shut down, so the tool was not run.`,
      { retryable: false, details: { tool, state: 'shutdown' } },
    );
  },

  /** `execute()`'s deadline ended a call that outlived the tool's own timeout. */
  backstopTimeout(tool: string, backstopMs: number): ErrorResponse {
    return ToolResponse.error(
      'TIMEOUT',
      `Tool "${tool}" did not finish within ${backstopMs} ms and was stopped.`,
      { details: { tool, backstopMs } },
    );
  },

  /** The caller cancelled the call; it says nothing about the tool's health. */
  cancelled(tool: string, started: boolean): ErrorResponse {
    return ToolResponse.error(
      'EXECUTION_ERROR',
      started
        ? `The call to "${tool}" was cancelled by the caller.`
        : `The call to "${tool}" was cancelled by the caller before it started.`,
      { cancelled: true, retryable: false },
    );
  },

  /** The tool resolved with something that is not a ToolResponse. */
  notAResponse(tool: string): ErrorResponse {
    return ToolResponse.error(
      'INTERNAL_ERROR',
      `Tool "${tool}" resolved with a value that is not a ToolResponse.`,
    );
  },

  /** The breaker itself was misused or failed; never counted. */
  misuse(tool: string, message: string): ErrorResponse {
    return ToolResponse.error(
      'INTERNAL_ERROR',
      `The circuit breaker for tool "${tool}" could not run the call: ${message}`,
    );
  },
} as const;
