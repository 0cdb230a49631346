import { ToolResponse } from '@candor/tools';

/** The response of a call its caller cancelled before the tool started. */
export function cancelledBeforeStart(toolName: string): ToolResponse {
  return ToolResponse.error(
    'EXECUTION_ERROR',
    `The call to "${toolName}" was cancelled by the caller before it started.`,
    { cancelled: true, retryable: false },
  );
}

/** The response of a call its caller cancelled while the tool ran. */
export function cancelledWhileRunning(toolName: string): ToolResponse {
  return ToolResponse.error(
    'EXECUTION_ERROR',
    `The call to "${toolName}" was cancelled by the caller.`,
    { cancelled: true, retryable: false },
  );
}
