import {
  anthropic,
  type ChatModel,
  gemini,
  openaiCompatible,
  openaiResponses,
} from '@candor/core';

/**
 * The real model named by `CANDOR_MODEL`, or undefined to use the scripted one:
 * `openai:<model>` (Chat Completions; OPENAI_API_KEY, optional OPENAI_BASE_URL),
 * `openai-responses:<model>` (the Responses API, which keeps a reasoning model's reasoning
 * across tool calls; the same variables), `anthropic:<model>`
 * (ANTHROPIC_API_KEY, optional ANTHROPIC_BASE_URL), `gemini:<model>` (GEMINI_API_KEY, optional
 * GEMINI_BASE_URL), or an OpenAI-compatible base URL such as
 * `http://127.0.0.1:11434/v1` for Ollama, with the model in CANDOR_MODEL_NAME.
 */
export function modelFromEnv(env: NodeJS.ProcessEnv): ChatModel | undefined {
  const spec = env['CANDOR_MODEL']?.trim();
  if (spec === undefined || spec === '') return undefined;
  if (spec.startsWith('openai-responses:')) {
    return openaiResponses({
      model: spec.slice('openai-responses:'.length),
      ...(env['OPENAI_API_KEY'] === undefined
        ? {}
        : { apiKey: env['OPENAI_API_KEY'] }),
      ...(env['OPENAI_BASE_URL'] === undefined
        ? {}
        : { baseURL: env['OPENAI_BASE_URL'] }),
    });
  }
  if (spec.startsWith('openai:')) {
    return openaiCompatible({
      baseURL: env['OPENAI_BASE_URL'] ?? 'https://api.openai.com/v1',
      model: spec.slice('openai:'.length),
      ...(env['OPENAI_API_KEY'] === undefined
        ? {}
        : { apiKey: env['OPENAI_API_KEY'] }),
    });
  }
  if (spec.startsWith('anthropic:')) {
    return anthropic({
      model: spec.slice('anthropic:'.length),
      ...(env['ANTHROPIC_API_KEY'] === undefined
        ? {}
        : { apiKey: env['ANTHROPIC_API_KEY'] }),
      ...(env['ANTHROPIC_BASE_URL'] === undefined
        ? {}
        : { baseURL: env['ANTHROPIC_BASE_URL'] }),
    });
  }
  if (spec.startsWith('gemini:')) {
    return gemini({
      model: spec.slice('gemini:'.length),
      ...(env['GEMINI_API_KEY'] === undefined
        ? {}
        : { apiKey: env['GEMINI_API_KEY'] }),
      ...(env['GEMINI_BASE_URL'] === undefined
        ? {}
        : { baseURL: env['GEMINI_BASE_URL'] }),
    });
  }
  if (/^https?:\/\//.test(spec)) {
    return openaiCompatible({
      baseURL: spec,
      model: env['CANDOR_MODEL_NAME'] ?? 'llama3.2',
      ...(env['OPENAI_API_KEY'] === undefined
        ? {}
        : { apiKey: env['OPENAI_API_KEY'] }),
    });
  }
  throw new Error(
    `CANDOR_MODEL must be openai:<model>, openai-responses:<model>, anthropic:<model>, gemini:<model> or an OpenAI-compatible base URL (e.g. http://127.0.0.1:11434/v1); got ${JSON.stringify(spec)}`,
  );
}
