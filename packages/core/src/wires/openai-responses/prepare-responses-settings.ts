import { type CallSettings } from '../../chat-model.ts';

/**
 * Call settings as Responses request fields. `POST /v1/responses` has `temperature`, `top_p` and
 * `max_output_tokens`, but no `stop` and no `seed` (openai-node's `ResponseCreateParamsBase`;
 * the AI SDK's OpenAI Responses provider warns that both are unsupported): asking for either is
 * refused here, by name, rather than silently dropped. Whether a model takes `temperature` is
 * the vendor's rule, and its 400 comes back with its message.
 */
export function prepareResponsesSettings(
  settings: CallSettings,
  where: string,
): Record<string, unknown> {
  if (settings.stopSequences !== undefined && settings.stopSequences.length > 0)
    throw new TypeError(
      `${where}: stopSequences is not supported by the OpenAI Responses API (it has no stop parameter); leave it unset for this wire`,
    );
  if (settings.seed !== undefined)
    throw new TypeError(
      `${where}: seed is not supported by the OpenAI Responses API (it has no seed parameter); leave it unset for this wire`,
    );
  return {
    ...(settings.temperature === undefined
      ? {}
      : { temperature: settings.temperature }),
    ...(settings.topP === undefined ? {} : { top_p: settings.topP }),
    ...(settings.maxOutputTokens === undefined
      ? {}
      : { max_output_tokens: settings.maxOutputTokens }),
  };
}
