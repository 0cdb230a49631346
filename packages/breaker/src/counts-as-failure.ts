import { type ToolErrorCode } from '@candor/errors';
import { isDenied, type ToolResponse } from '@candor/tools';
import { defaultFailureCodes } from './breaker-defaults.ts';

/**
 * Whether a breaker counts `response` as a failure of the tool's health: an ERROR response whose
 * code is in `failureCodes`. A cancelled call, an approval gate's denial and `CIRCUIT_OPEN` never
 * count, whatever `failureCodes` says.
 *
 * @example
 * ```ts
 * countsAsFailure(ToolResponse.error('TIMEOUT', 'slow')); // true
 * countsAsFailure(ToolResponse.error('NOT_FOUND', 'no such file')); // false
 * ```
 */
export function countsAsFailure(
  response: ToolResponse,
  failureCodes: ReadonlySet<ToolErrorCode> = defaultFailureCodes,
): boolean {
  if (response.status !== 'error' || isDenied(response)) return false;
  const { code, cancelled } = response.errorInfo;
  return (
    cancelled !== true && code !== 'CIRCUIT_OPEN' && failureCodes.has(code)
  );
}
