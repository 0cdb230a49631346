import type { ToolResultKind } from './classify-tool-result.ts';
import type { DeliveryFault } from './delivery-faults.ts';
import type { ScriptedReasoning, ScriptedToolCall } from './scripted-reply.ts';

/** Options for {@link StepScript.responds}. */
export interface RespondOptions {
  /** Gemini: the text answer's `thoughtSignature`. Other wires ignore it. */
  readonly thoughtSignature?: string;
}

/** Options for {@link StepScript.fails}. */
export interface FailOptions {
  /** Response headers, e.g. `retry-after`, `retry-after-ms`, `x-should-retry`. */
  readonly headers?: Readonly<Record<string, string>>;
  /** OpenAI `error.type`; derived from the status when absent. */
  readonly type?: string;
}

/**
 * One named step of a conversation: conditions (`when…`, all must hold), a response
 * (`responds`, `callsTools`), and an attempt queue (`fails`, `delaysBy`, `deliversWith`)
 * that is served before the successful response.
 */
export interface StepScript {
  /** Match when the request ends with a user turn whose text contains `match` (or matches the RegExp). */
  whenUser(match: string | RegExp): StepScript;
  /** Match when the latest assistant turn called `name` as `callId` and its result is of `kind`. */
  whenToolResult(
    name: string,
    callId: string,
    kind: ToolResultKind,
  ): StepScript;
  /** Match when the latest tool result parses as JSON and `path` holds a value deeply equal to `value`. */
  whenLatestJson(path: string, value: unknown): StepScript;
  /**
   * Match when the latest tool result is an error with this code: Candor's bracketed code
   * (`[CIRCUIT_OPEN] …`) or the failure envelope's `error.code`, on every wire.
   */
  whenLatestCode(code: string): StepScript;
  /** Match when the latest tool result's text contains `match` (or matches the RegExp). */
  whenLatestText(match: string | RegExp): StepScript;
  /** Answer with these tool calls (`finish_reason: tool_calls` / `stop_reason: tool_use`). */
  callsTools(calls: readonly ScriptedToolCall[]): StepScript;
  /**
   * Answer with this text. Gemini: `thoughtSignature` is sent on a final empty-text part, as
   * Gemini signs a text answer.
   */
  responds(text: string, options?: RespondOptions): StepScript;
  /**
   * Emit these reasoning blocks before the answer (Anthropic thinking / redacted_thinking,
   * Gemini thought parts, OpenAI Responses reasoning items). A strict server then checks
   * that the next request replays them unchanged, as each vendor does.
   */
  thinks(blocks: readonly ScriptedReasoning[]): StepScript;
  /** Bill this many reasoning tokens (default: estimated from the reasoning text). */
  reasoningTokens(count: number): StepScript;
  /**
   * Refuse with this text: an OpenAI Responses `refusal` content part; on the other wires the
   * answer ends with the content-filter finish reason (`content_filter`, `refusal`, `SAFETY`).
   */
  refuses(text: string): StepScript;
  /**
   * Block the prompt: Gemini answers `promptFeedback.blockReason` (default `SAFETY`) and no
   * candidates; the other wires end with their content-filter finish reason.
   */
  blocksPrompt(reason?: string): StepScript;
  /** Mark the conversation complete once this step has answered successfully. */
  complete(): StepScript;
  /** Queue one attempt that fails with a provider-shaped error; it consumes that attempt. */
  fails(
    status: number,
    code: string,
    message: string,
    options?: FailOptions,
  ): StepScript;
  /**
   * Delay the next queued attempt (or the success, if nothing else is queued after it) by
   * `ms`. A client that cancels during the delay does not consume the attempt.
   */
  delaysBy(ms: number): StepScript;
  /** Queue one attempt that sends the step's response broken by `fault`; it consumes that attempt. */
  deliversWith(fault: DeliveryFault): StepScript;
  /** Starts the next step of the same conversation (for chaining). */
  step(name: string): StepScript;
}

/** The builder handed to `server.conversation(name, define)`. */
export interface ConversationScript {
  /** Starts a new step. Names are unique within a conversation. */
  step(name: string): StepScript;
}

/** What a test can see of a defined conversation. */
export interface ConversationHandle {
  readonly name: string;
  /** True once a step marked `complete()` has answered successfully. */
  readonly completed: boolean;
}
