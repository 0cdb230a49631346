/**
 * The one seam every tool call passes through: lookup, validation, approval, breaker,
 * timeout, normalisation, timing, events and logging.
 *
 * @packageDocumentation
 * @module \@candor/registry
 */
export { ToolRegistry } from './tool-registry.ts';
export type {
  ApprovalDecision,
  ApprovalGate,
  ApprovalRequest,
  CallOptions,
  CheckOptions,
  CheckResult,
  PlainToolFunction,
  RegisterFunctionOptions,
  RegisterOptions,
  // eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
  JsonSchemaToolSpec,
  SpecFormat,
  SpecsByFormat,
  SpecsOptions,
  ToolListing,
  ToolRegistryOptions,
} from './tool-registry.ts';
export type {
  CallStage,
  RegistryEvents,
  ToolEndEvent,
  ToolRegisteredEvent,
  ToolStartEvent,
} from './registry-events.ts';
export type { ToolTelemetryOptions } from './tool-telemetry.ts';
// Re-exported from @candor/tools, where the one redaction lives.
export { SecretRedactor } from '@candor/tools';
export type { RedactOptions } from '@candor/tools';
