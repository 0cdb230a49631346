import { type SharedCircuitRules } from '@candor/breaker';
import { MAX_FLEET_TRIALS } from './fleet-slot-scripts.ts';

/**
 * Throws a `TypeError` naming a breaker rule the Redis store cannot follow fleet-wide, so a fleet
 * never silently decides by other rules than its breakers were given. Slow calls and the count
 * window are counted in the shared window, and up to 20 half-open calls
 * have their slots in the tool's record; more would not fit the record's cap.
 */
export function checkFleetRules(rules: Partial<SharedCircuitRules>): void {
  const permitted = rules.permittedCallsInHalfOpen;
  if (permitted !== undefined && permitted > MAX_FLEET_TRIALS) {
    throw new TypeError(
      `Breaker option "permittedCallsInHalfOpen" (${permitted}) is over what the Redis store supports (${MAX_FLEET_TRIALS}): every half-open slot is kept in the tool's record`,
    );
  }
}
