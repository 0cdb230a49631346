/**
 * A per-tool circuit breaker on opossum that counts only tool-health ERROR responses and
 * never rejects: every call ends in a `ToolResponse`.
 *
 * @packageDocumentation
 * @module \@candor/breaker
 */
export {
  breakerDefaults,
  defaultFailureCodes,
  validateBreakerOptions,
} from './breaker-options.ts';
export type {
  BreakerOptions,
  BreakerTelemetryOptions,
} from './breaker-options.ts';
export { breakerMetricNames } from './breaker-metrics.ts';
export type { BreakerCallOutcome } from './breaker-metrics.ts';
export { BreakerRegistry } from './breaker-registry.ts';
export { BreakerState } from './breaker-state.ts';
export type {
  BreakerStateStore,
  SharedAdmission,
  SharedChange,
  SharedCircuit,
  SharedCircuitRules,
  SharedView,
} from './breaker-state-store.ts';
export { countsAsFailure } from './counts-as-failure.ts';
export { createToolBreaker } from './tool-breaker.ts';
export { runWithDeadline } from './run-with-deadline.ts';
export type { DeadlineRun } from './run-with-deadline.ts';
export type {
  Admission,
  BreakerSnapshot,
  BreakerWindow,
  ExecuteOptions,
  RecordOptions,
  Refusal,
  StateChange,
  ToolBreaker,
  TransitionOrigin,
} from './tool-breaker.ts';
