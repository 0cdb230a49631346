import {
  anthropic,
  type ChatModel,
  gemini,
  openaiResponses,
} from '../../index.ts';

/** The three vendor wires with reasoning on, as the resume test and its child process make them. */
export function resumeModel(wire: string, baseURL: string): ChatModel {
  switch (wire) {
    case 'anthropic':
      return anthropic({
        baseURL,
        apiKey: 'test-key',
        model: 'claude-sonnet-4-5',
        maxOutputTokens: 4096,
        thinking: { type: 'enabled', budgetTokens: 2048 },
      });
    case 'gemini':
      return gemini({
        baseURL,
        apiKey: 'test-key',
        model: 'gemini-3-pro-preview',
        thinkingConfig: { thinkingLevel: 'low', includeThoughts: true },
      });
    case 'openai-responses':
      return openaiResponses({
        baseURL: `${baseURL}/v1`,
        apiKey: 'test-key',
        model: 'gpt-test',
      });
    default:
      throw new TypeError(`unknown wire ${wire}`);
  }
}
