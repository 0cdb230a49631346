/**
 * The agent loop that branches on each tool call's outcome, with OpenAI-compatible,
 * Anthropic, Gemini and scripted models.
 *
 * @packageDocumentation
 * @module \@candor/core
 */
export { Agent } from './agent.ts';
export type { AgentOptions, RunOptions } from './agent.ts';
export { agentAttributes } from './agent-telemetry.ts';
export type { AgentTelemetryOptions } from './agent-telemetry.ts';
export type {
  AgentEvent,
  AgentRunResult,
  AgentStep,
  AgentToolCall,
  StopReason,
} from './agent-events.ts';
export type {
  AssistantPart,
  AssistantTextPart,
  AssistantToolCallPart,
  CallSettings,
  ChatMessage,
  ChatModel,
  ChatRequest,
  FinishReason,
  JsonValue,
  ModelEvent,
  ModelToolCall,
  ModelToolSpec,
  ProviderData,
  ProviderOptions,
  ReasoningPart,
  ToolResultMessage,
  Usage,
} from './chat-model.ts';
export { AssistantTurn, assistantParts } from './assistant-turn.ts';
export { checkCallSettings, mergeCallSettings } from './call-settings.ts';
export { ModelError } from './model-error.ts';
export type { ModelErrorKind } from './model-error.ts';
export { ErrorBudget } from './error-budget.ts';
export type {
  BudgetExhaustion,
  ErrorBudgetOptions,
  RecordedError,
} from './error-budget.ts';
// Re-exported from @candor/tools, where every surface that shows a result to a model can reach it.
export { DEFAULT_MAX_DETAIL_BYTES, toolResultForModel } from '@candor/tools';
export type {
  ModelVisibleResult,
  ToolResultForModelOptions,
} from '@candor/tools';
export { openaiCompatible } from './wires/openai-compatible/openai-compatible.ts';
export type { OpenAICompatibleOptions } from './wires/openai-compatible/openai-compatible.ts';
export { anthropic } from './wires/anthropic/anthropic.ts';
export type { AnthropicOptions } from './wires/anthropic/anthropic.ts';
export type {
  AnthropicEffort,
  AnthropicThinking,
  AnthropicThinkingDisplay,
} from './wires/anthropic/anthropic-thinking.ts';
export { gemini } from './wires/gemini/gemini.ts';
export type {
  GeminiOptions,
  GeminiThinkingConfig,
} from './wires/gemini/gemini.ts';
export { openaiResponses } from './wires/openai-responses/openai-responses.ts';
export type {
  OpenAIResponsesOptions,
  OpenAIResponsesReasoning,
} from './wires/openai-responses/openai-responses.ts';
// The shared pieces of a ChatModel, for wires and framework adapters beside core.
export { toContentParts } from './content-parts.ts';
export type {
  ContentPartMessage,
  ReasoningContentPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from './content-parts.ts';
export { contentPartEvents } from './content-part-stream.ts';
export type { ContentStreamPart } from './content-part-stream.ts';
export { retryBeforeFirstChunk } from './retry-before-first-chunk.ts';
export type {
  AttemptFailure,
  CommitState,
  RetryingRequest,
} from './retry-before-first-chunk.ts';
export { retryDelayMs, retryPolicy } from './retry-policy.ts';
export type { RetryOptions, RetryPolicy } from './retry-policy.ts';
