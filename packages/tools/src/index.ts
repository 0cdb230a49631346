/**
 * The ToolResponse protocol: statuses, factories, the zod wire schema, outcomeOf and
 * defineTool.
 *
 * @packageDocumentation
 * @module \@candor/tools
 */
export { ToolStatus } from './tool-status.ts';
export { ToolResponse } from './tool-response.ts';
export type {
  DeniedOptions,
  ErrorInfo,
  ErrorOptions,
  ErrorResponse,
  PartialOptions,
  PartialResponse,
  ResponseOptions,
  SuccessResponse,
  ToolContext,
  ToolStats,
} from './tool-response.ts';
// parse, safeParse, fromJSON and toJSON are reached through ToolResponse, so each has one name.
export { toolResponseSchema } from './tool-response-schema.ts';
export type { SafeParseToolResponse } from './tool-response-schema.ts';
export {
  isDenied,
  isObservedOutcome,
  isOutcome,
  ObservedOutcome,
  outcomeOf,
  ToolOutcome,
} from './outcome-of.ts';
export type { ResponseOfOutcome } from './outcome-of.ts';
export {
  defineTool,
  isToolDefinition,
  TOOL_NAME_PATTERN,
} from './define-tool.ts';
export type {
  AnyToolDefinition,
  RetryOptions,
  ToolDefinition,
  ToolProgress,
  ToolRunContext,
} from './define-tool.ts';
export { readToolAnnotations } from './tool-annotations.ts';
export type { ToolAnnotations } from './tool-annotations.ts';
export {
  toolInputJsonSchema,
  toolOutputJsonSchema,
  toolSpec,
} from './tool-spec.ts';
export type { JsonSchema, ToolSpec } from './tool-spec.ts';
// Deprecated provider shapes, kept for one minor version: each wire in @candor/core converts a ToolSpec.
// eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
export { toAnthropicTool, toOpenAITool } from './provider-specs.ts';
// eslint-disable-next-line @typescript-eslint/no-deprecated -- kept working for one minor version
export type { AnthropicToolSpec, OpenAIToolSpec } from './provider-specs.ts';
export { ToolProtocolError } from './tool-protocol-error.ts';
// The logger and its guard live in @candor/errors, the lowest layer, so every package (the test
// server's included) guards a logger the same way; re-exported here where they were first named.
export { guardLogger, silentLogger } from '@candor/errors';
export type { Logger, LogMethod } from '@candor/errors';
export { CallAbort } from './call-abort.ts';
export {
  DEFAULT_MAX_DETAIL_BYTES,
  toolResultForModel,
} from './tool-result-for-model.ts';
export type {
  ModelVisibleResult,
  ToolResultForModelOptions,
} from './tool-result-for-model.ts';
export { typedResultForModel } from './typed-result-for-model.ts';
export type { TypedModelResult } from './typed-result-for-model.ts';
export { adapterTools } from './adapter-tools.ts';
export type {
  AdapterTool,
  AdapterToolsOptions,
  NeedsApproval,
} from './adapter-tools.ts';
export { scrubSecrets, SecretRedactor } from './secret-redactor.ts';
export type { RedactOptions } from './secret-redactor.ts';
export type {
  ToolExecutor,
  ToolExecutorCallOptions,
  ToolExecutorCheck,
  ToolExecutorSpec,
  ToolExecutorSpecsOptions,
} from './tool-executor.ts';
// What a tool throws, and how a catch block names a code, come with the tools package, so the
// packages on the README's install line are enough (@candor/errors stays their one home).
export { classifyError, ToolError, ToolErrorCode } from '@candor/errors';
export type {
  ClassifiedError,
  ClassifyOptions,
  ToolErrorOptions,
} from '@candor/errors';
