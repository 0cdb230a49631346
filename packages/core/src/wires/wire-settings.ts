import { type CallSettings, type ChatRequest } from '../chat-model.ts';
import { checkCallSettings, mergeCallSettings } from '../call-settings.ts';

const SETTING_KEYS = [
  'temperature',
  'topP',
  'maxOutputTokens',
  'stopSequences',
  'seed',
  'providerOptions',
] as const;

/**
 * The call settings among a wire's options (`temperature`, `topP`, `maxOutputTokens`,
 * `stopSequences`, `seed`, `providerOptions`), checked when the model is made: a wrong type or
 * range throws there, naming the wire, not on the first request.
 */
export function modelSettings(
  wire: string,
  options: CallSettings,
): CallSettings {
  const picked: Record<string, unknown> = {};
  for (const key of SETTING_KEYS) {
    const value = options[key];
    if (value !== undefined) picked[key] = value;
  }
  return checkCallSettings(picked, wire);
}

/** The model's settings with the run's (already checked by the agent) laid over them. */
export function requestSettings(
  model: CallSettings,
  request: ChatRequest,
): CallSettings {
  return mergeCallSettings(model, request.settings);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The request body with the wire's `providerOptions` merged in last, over what Candor set:
 * objects merge key by key (so `generationConfig: { topK }` adds to Gemini's generation config
 * rather than replacing it), anything else replaces.
 */
export function withProviderOptions(
  body: Record<string, unknown>,
  settings: CallSettings,
  wireKey: string,
): Record<string, unknown> {
  const extra = settings.providerOptions?.[wireKey];
  return extra === undefined ? body : mergeObjects(body, extra);
}

function mergeObjects(
  base: Readonly<Record<string, unknown>>,
  over: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = merged[key];
    merged[key] =
      isPlainObject(current) && isPlainObject(value)
        ? mergeObjects(current, value)
        : value;
  }
  return merged;
}
