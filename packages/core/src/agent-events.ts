import { type ToolErrorCode } from '@candor/errors';
import { type ToolOutcome, type ToolResponse } from '@candor/tools';
import {
  type ChatMessage,
  type FinishReason,
  type ModelToolCall,
  type Usage,
} from './chat-model.ts';
import { type ModelErrorKind } from './model-error.ts';
import { type BudgetExhaustion, type RecordedError } from './error-budget.ts';
import type { ModelVisibleResult } from '@candor/tools';

/**
 * Why a run stopped.
 *
 * - `completed`: the model answered without asking for a tool.
 * - `content_filter`: the provider blocked the prompt or the answer; never `completed`.
 * - `length`: the answer was cut at the output-token limit (`maxOutputTokens`, the vendor's
 *   default when unset); its text is partial and none of that turn's tool calls ran (one may
 *   have been cut mid-arguments). A finish word Candor cannot read, or no finish at all, is a
 *   `model_error` (`kind: 'incomplete'`), never `completed`.
 * - `max_steps`, `error_budget`: a limit of the agent stopped it.
 * - `aborted`: the run's signal fired.
 * - `model_error`: the provider or its stream failed (`modelError` says how).
 * - `abandoned`: only in telemetry, never in a result: the caller stopped reading
 *   `agent.stream()` before its `done` event; every span of the run is ended with it.
 */
export type StopReason =
  | 'completed'
  | 'content_filter'
  | 'length'
  | 'max_steps'
  | 'error_budget'
  | 'aborted'
  | 'model_error'
  | 'abandoned';

/** One tool call of a step, with what the model was sent. */
export interface AgentToolCall {
  readonly call: ModelToolCall;
  readonly response: ToolResponse;
  readonly outcome: ToolOutcome;
  readonly sentToModel: ModelVisibleResult;
}

/** One model turn and the tool calls it made. */
export interface AgentStep {
  readonly index: number;
  readonly text: string;
  readonly finishReason: FinishReason | undefined;
  readonly toolCalls: readonly AgentToolCall[];
}

/** The result of `Agent.run`. */
export interface AgentRunResult {
  /** The model's final text (the last step's text when the run did not complete). */
  readonly text: string;
  readonly stopReason: StopReason;
  readonly steps: readonly AgentStep[];
  readonly usage: Usage;
  /**
   * The whole conversation, provider-neutral: the input messages, then each assistant turn and
   * its tool results as the model was sent them, ending with the model's final turn. Pass it back
   * with a new user message to continue: `agent.run([...result.messages, { role: 'user', content }])`.
   * `instructions` are not in it (the agent sends them on every turn). Tool-call arguments are
   * censored like every other surface, so a secret the model put in an argument is
   * `[REDACTED]` here and in the history the model is sent. After an abort during tool calls,
   * the unanswered assistant turn is left out.
   */
  readonly messages: readonly ChatMessage[];
  /** With `error_budget`: which limit ran out, and the last errors. */
  readonly budget?: {
    readonly exhausted: BudgetExhaustion;
    readonly lastErrors: readonly RecordedError[];
  };
  /** With `model_error`: what the provider or the stream did. */
  readonly modelError?: {
    readonly kind: ModelErrorKind | 'unknown';
    readonly message: string;
    readonly status?: number;
    /** The provider's name for the failure (`UNAVAILABLE`, `overloaded_error`), when it sent one. */
    readonly code?: string;
  };
}

/** What `Agent.stream` yields. */
export type AgentEvent =
  | {
      readonly type: 'text-delta';
      readonly step: number;
      readonly text: string;
    }
  | {
      readonly type: 'tool-start';
      readonly step: number;
      readonly callId: string;
      readonly toolName: string;
      /** The raw arguments text, with secret-looking values censored. */
      readonly arguments: string;
    }
  | {
      readonly type: 'tool-end';
      readonly step: number;
      readonly callId: string;
      readonly toolName: string;
      readonly outcome: ToolOutcome;
      readonly code?: ToolErrorCode;
      readonly response: ToolResponse;
      readonly sentToModel: ModelVisibleResult;
    }
  | {
      readonly type: 'step-end';
      readonly step: number;
      readonly finishReason: FinishReason | undefined;
      readonly toolCalls: number;
      readonly usage?: Usage;
    }
  | { readonly type: 'done'; readonly result: AgentRunResult };
