import { type FinishReason } from '../../chat-model.ts';

/**
 * How a Responses stream ended, in the shared vocabulary. `response.incomplete` says why in
 * `incomplete_details.reason` (`max_output_tokens` or `content_filter`, openai-node's
 * `Response.IncompleteDetails`); `response.completed` has none, so the items decide: a function
 * call means `tool_calls`, a refusal content part means `content_filter` (a refused answer is
 * never a plain stop).
 */
export function mapResponsesFinishReason({
  incompleteReason,
  hasCalls,
  refused,
}: {
  /** `undefined` for `response.completed`. */
  readonly incompleteReason: unknown;
  readonly hasCalls: boolean;
  readonly refused: boolean;
}): FinishReason {
  switch (incompleteReason) {
    case undefined:
      return refused ? 'content_filter' : hasCalls ? 'tool_calls' : 'stop';
    case 'max_output_tokens':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}
