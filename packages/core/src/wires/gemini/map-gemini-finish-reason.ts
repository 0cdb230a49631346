import { type FinishReason } from '../../chat-model.ts';

/**
 * Gemini's `finishReason` in the shared vocabulary. Gemini ends a turn with function calls on
 * `STOP`, so the calls decide then. Every safety-like block is `content_filter`. Source:
 * https://ai.google.dev/api/generate-content#FinishReason
 */
export function mapGeminiFinishReason(
  value: unknown,
  hasCalls: boolean,
): FinishReason {
  switch (value) {
    case 'STOP':
      return hasCalls ? 'tool_calls' : 'stop';
    case 'MAX_TOKENS':
      return 'length';
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
      return 'content_filter';
    default:
      // LANGUAGE, MALFORMED_FUNCTION_CALL, OTHER, values added later.
      return hasCalls ? 'tool_calls' : 'other';
  }
}
