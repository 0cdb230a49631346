import { type RegistrySeam } from './registry-seam.ts';

/**
 * Closes one tool's breaker (see `ToolBreaker.reset`); whether it had one to close. A tool that
 * was never called has no breaker yet, and a registry or tool without breakers has none at all.
 */
export function resetBreaker(seam: RegistrySeam, name: string): boolean {
  const given: unknown = name;
  if (typeof given !== 'string') {
    throw new TypeError(
      `ToolRegistry.resetBreaker: name must be a string, got ${given === null ? 'null' : typeof given}`,
    );
  }
  const breakers = seam.breakers;
  if (!breakers?.has(name)) return false;
  breakers.get(name).reset();
  return true;
}
