/**
 * A scripted LLM provider test server: OpenAI Chat Completions and Responses, Anthropic Messages
 * and Gemini over real sockets, with scripted conversations, reasoning state and the vendors'
 * strict rules, tool-result faults, provider errors and delivery faults.
 *
 * @packageDocumentation
 * @module \@candor/testing
 */
export { LlmTestServer } from './llm-test-server.ts';
export type {
  ContentFilterOptions,
  LlmTestServerOptions,
  RunningLlmTestServer,
} from './llm-test-server.ts';
export type {
  ConversationHandle,
  ConversationScript,
  FailOptions,
  RespondOptions,
  StepScript,
} from './step-script.ts';
export { ScriptError } from './script-error.ts';
export { classifyToolResult, toolResultKinds } from './classify-tool-result.ts';
export type {
  ClassifiedToolResult,
  ToolResultInput,
  ToolResultKind,
} from './classify-tool-result.ts';
export { toolFaultFixtures } from './tool-fault-fixtures.ts';
export type {
  AnthropicToolResultBlock,
  FailureEnvelope,
  OpenAiToolMessage,
  ToolResultFixture,
} from './tool-fault-fixtures.ts';
export { deliveryFaults } from './delivery-faults.ts';
export type {
  DeliveryFault,
  DeliveryFaultKind,
  InStreamError,
} from './delivery-faults.ts';
export { attemptOutcomes } from './attempt.ts';
export type {
  Attempt,
  AttemptDisposition,
  AttemptOutcome,
  StreamController,
} from './attempt.ts';
export { compileJsonPath } from './json-path.ts';
export type { JsonPath, JsonPathRead } from './json-path.ts';
export type { Provider } from './provider-protocol.ts';
export type { ScriptedReasoning, ScriptedToolCall } from './scripted-reply.ts';
export type { TestServerLogger } from './test-server-logger.ts';
