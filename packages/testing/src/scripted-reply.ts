/** A tool call the scripted model makes. `args` objects are sent as JSON; strings as they are. */
export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /**
   * Gemini only: the `thoughtSignature` sent on this call's `functionCall` part. In parallel
   * calls Gemini signs only the first part, so script it on the first call only. A strict
   * server answers a request that replays this call without it with Google's 400. Other wires
   * ignore it.
   */
  readonly thoughtSignature?: string;
}

/**
 * One reasoning block the scripted model emits before its answer.
 *
 * - `thinking`: Anthropic `thinking` block (`thinking_delta`s, then one `signature_delta`);
 *   Gemini thought part (`thought: true`, only when the request asks for
 *   `thinkingConfig.includeThoughts`); OpenAI Responses reasoning item whose summary is the
 *   text and whose `encrypted_content` is the signature. `thinking: ''` is a block shown with
 *   its text omitted (Anthropic `display: "omitted"`) that still carries its signature.
 * - `redacted_thinking`: Anthropic `redacted_thinking` block with opaque `data`; a Responses
 *   reasoning item with an empty summary and `data` as its `encrypted_content`; Gemini omits it.
 */
export type ScriptedReasoning =
  | {
      readonly type: 'thinking';
      readonly thinking: string;
      readonly signature: string;
    }
  | { readonly type: 'redacted_thinking'; readonly data: string };

/** Why the scripted model stopped, in provider-neutral terms. */
export type ScriptedFinish = 'stop' | 'tool_calls' | 'content_filter';

/** The model's answer for one step, before it is rendered for a provider. */
export interface ScriptedReply {
  readonly text: string | undefined;
  readonly toolCalls: readonly ScriptedToolCall[];
  readonly finish: ScriptedFinish;
  /** Reasoning blocks, sent before the text and the tool calls. */
  readonly reasoning?: readonly ScriptedReasoning[];
  /** Gemini: the `thoughtSignature` of a text answer, sent on a final empty-text part. */
  readonly textSignature?: string;
  /** Reasoning tokens billed; default: an estimate from the reasoning text. */
  readonly reasoningTokens?: number;
  /** OpenAI Responses: a refusal content part with this text (the response still completes). */
  readonly refusal?: string;
  /** Gemini: the prompt is blocked (`promptFeedback.blockReason`), no candidates. */
  readonly blockReason?: string;
}

/** The reasoning tokens a reply bills: scripted, or estimated from its reasoning text. */
export function reasoningTokensOf(reply: ScriptedReply): number {
  if (reply.reasoningTokens !== undefined) return reply.reasoningTokens;
  const blocks = reply.reasoning ?? [];
  if (blocks.length === 0) return 0;
  return estimateTokens(
    blocks
      .map((block) => (block.type === 'thinking' ? block.thinking : block.data))
      .join(''),
  );
}

/** Tokens of the visible answer (text and tool arguments), without reasoning. */
export function answerTokensOf(reply: ScriptedReply): number {
  return estimateTokens(
    (reply.text ?? '') +
      (reply.refusal ?? '') +
      reply.toolCalls.map(argumentText).join(''),
  );
}

/** The argument text of a call exactly as it goes on the wire. */
export function argumentText(call: ScriptedToolCall): string {
  return typeof call.args === 'string' ? call.args : JSON.stringify(call.args);
}

/** Cuts a string every `length` UTF-16 code units, so slices may split escapes and surrogate pairs. */
export function sliceText(text: string, length: number): readonly string[] {
  const slices: string[] = [];
  for (let start = 0; start < text.length; start += length) {
    slices.push(text.slice(start, start + length));
  }
  return slices;
}

/** Splits reply text into word-sized pieces (spaces kept) so streams carry several deltas. */
export function textPieces(text: string): readonly string[] {
  return text.match(/\S+\s*|\s+/g) ?? [text];
}

/** A deterministic token estimate: about four characters per token, at least one. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
