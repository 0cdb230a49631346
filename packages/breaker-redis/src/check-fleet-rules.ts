import { type SharedCircuitRules } from '@candor/breaker';

/**
 * Throws a `TypeError` naming a breaker rule the Redis store cannot follow fleet-wide yet, so a
 * fleet never silently decides by other rules than its breakers were given. Slow calls and the
 * count window are counted in the shared window; several half-open calls are not yet (the fleet
 * has one trial lease).
 */
export function checkFleetRules(rules: Partial<SharedCircuitRules>): void {
  const permitted = rules.permittedCallsInHalfOpen;
  if (permitted !== undefined && permitted > 1) {
    throw new TypeError(
      `Breaker option "permittedCallsInHalfOpen" (${permitted}) is not supported with the Redis store yet: the fleet runs one half-open trial at a time; leave it at 1`,
    );
  }
}
