import { type FinishReason } from '../../chat-model.ts';

/** Anthropic's `stop_reason` in the shared vocabulary. */
export function mapAnthropicFinishReason(value: unknown): FinishReason {
  switch (value) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return 'other';
  }
}
