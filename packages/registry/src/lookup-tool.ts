import { ToolResponse } from '@candor/tools';
import {
  type CallRequest,
  type Entry,
  type FoundCall,
  type StageResult,
} from './call-types.ts';
import { type RegistrySeam } from './registry-seam.ts';

/**
 * Lookup: the registered tool of that name, read once when the call begins, so the span and the
 * pipeline see the same entry.
 */
export function lookupTool(
  seam: RegistrySeam,
  toolName: string,
): Entry | undefined {
  return seam.tools.get(toolName);
}

/** Whether the call's tool was found. */
export function isFound(call: CallRequest): call is FoundCall {
  return call.entry !== undefined;
}

/**
 * Where a call ends when the registry is shut down, or has no tool of that name (the answer
 * lists the tools it has).
 */
export function lookupFailure(
  seam: RegistrySeam,
  toolName: string,
): StageResult {
  if (seam.shutDown) {
    return {
      stage: 'lookup',
      response: ToolResponse.error(
        'CIRCUIT_OPEN',
        'The tool registry has been shut down.',
        { retryable: false },
      ),
    };
  }
  const available = [...seam.tools.keys()].sort().join(', ') || '(none)';
  return {
    stage: 'lookup',
    response: ToolResponse.error(
      'NOT_FOUND',
      `Unknown tool "${truncate(toolName, 80)}". Available tools: ${available}.`,
    ),
  };
}

function truncate(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length)}…`;
}
