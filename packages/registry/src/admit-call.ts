import {
  type Admission,
  type Refusal,
  type ToolBreaker,
} from '@candor/breaker';
import { type Entry } from './call-types.ts';
import { type RegistrySeam } from './registry-seam.ts';

/**
 * The tool's breaker, made on first use with the tool's own overrides, or `undefined` when the
 * registry or the tool runs without one.
 */
export function breakerFor(
  seam: RegistrySeam,
  entry: Entry,
): ToolBreaker | undefined {
  if (seam.breakers === undefined || entry.breaker === false) return undefined;
  return (entry.breakerInstance ??= seam.breakers.get(entry.tool.name, {
    timeoutMs: entry.tool.timeoutMs ?? seam.timeoutMs,
    ...entry.breaker,
  }));
}

/**
 * The breaker's admission of one attempt: an admission to record once the attempt ends, a
 * refusal (CIRCUIT_OPEN) in place of the run, or `undefined` without a breaker.
 */
export function admitCall(
  breaker: ToolBreaker | undefined,
): Admission | Refusal | undefined {
  return breaker === undefined ? undefined : breaker.admit();
}
