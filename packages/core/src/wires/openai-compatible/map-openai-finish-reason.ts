import { type FinishReason } from '../../chat-model.ts';

/**
 * Chat Completions' `finish_reason` in the shared vocabulary. Some compatible servers send no
 * reason, or an unknown one, with tool calls: the calls decide then.
 */
export function mapOpenAIFinishReason(
  value: unknown,
  hasCalls: boolean,
): FinishReason {
  switch (value) {
    case 'stop':
      return 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool_calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return hasCalls ? 'tool_calls' : 'other';
  }
}
