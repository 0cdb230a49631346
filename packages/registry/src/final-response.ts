import { type ToolResponse, type ToolStats } from '@candor/tools';
import { boundDetails } from './bound-details.ts';
import { capResponse, capText } from './cap-response.ts';
import { type FinishInput } from './call-types.ts';
import { type RegistrySeam } from './registry-seam.ts';
import { hasUnnamedKeys, scrubResponse } from './scrub-response.ts';

/**
 * The response that leaves the seam: scrubbed (the one redaction), then built in one object
 * literal per status, so every call's
 * response has one of a few fixed shapes (no spread, then added fields): the call's timing and
 * context, the text capped at `maxResultChars`.
 */
export function finalResponse(
  seam: RegistrySeam,
  done: FinishInput,
  durationMs: number,
): ToolResponse {
  const { toolName, callId, params } = done;
  const bounded = boundDetails(done.result.response);
  // Read once: scrubbing keeps the keys a response has.
  const unnamed = hasUnnamedKeys(bounded);
  const response = scrubResponse(seam.redactor, bounded, done.secrets, unnamed);
  const stats = finalStats(response.stats, durationMs, done.result.attempts);
  const context =
    response.context === undefined
      ? { toolName, callId, params }
      : { ...response.context, toolName, callId, params };
  // Fields the wire schema does not name are kept, as it keeps them: the rare, slower path.
  if (unnamed) {
    return { ...capResponse(response, seam.maxResultChars), stats, context };
  }
  const limit = seam.maxResultChars;
  const capped = response.text.length > limit;
  const text = capped ? capText(response.text, limit) : response.text;
  const hasData = 'data' in response;
  const data = hasData ? response.data : undefined;
  switch (response.status) {
    case 'success':
      if (capped) {
        const reason = 'result_truncated';
        return hasData
          ? { status: 'partial', text, data, stats, context, reason }
          : { status: 'partial', text, stats, context, reason };
      }
      return hasData
        ? { status: 'success', text, data, stats, context }
        : { status: 'success', text, stats, context };
    case 'partial': {
      const reason = response.reason;
      return hasData
        ? { status: 'partial', text, data, stats, context, reason }
        : { status: 'partial', text, stats, context, reason };
    }
    case 'error': {
      const errorInfo = response.errorInfo;
      return hasData
        ? { status: 'error', text, data, stats, context, errorInfo }
        : { status: 'error', text, stats, context, errorInfo };
    }
  }
}

/** The response's stats with the call's time (and attempts); one fixed shape for most tools. */
function finalStats(
  given: ToolStats,
  timeMs: number,
  attempts: number | undefined,
): ToolStats {
  // Most tools report no measures of their own.
  if (onlyTime(given)) {
    return attempts === undefined ? { timeMs } : { timeMs, attempts };
  }
  return attempts === undefined
    ? { ...given, timeMs }
    : { ...given, timeMs, attempts };
}

function onlyTime(stats: ToolStats): boolean {
  for (const key in stats) if (key !== 'timeMs') return false;
  return true;
}
