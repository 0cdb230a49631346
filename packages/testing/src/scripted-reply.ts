/** A tool call the scripted model makes. `args` objects are sent as JSON; strings as they are. */
export interface ScriptedToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
}

/** Why the scripted model stopped, in provider-neutral terms. */
export type ScriptedFinish = 'stop' | 'tool_calls' | 'content_filter';

/** The model's answer for one step, before it is rendered for a provider. */
export interface ScriptedReply {
  readonly text: string | undefined;
  readonly toolCalls: readonly ScriptedToolCall[];
  readonly finish: ScriptedFinish;
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
