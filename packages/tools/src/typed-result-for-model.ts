import { outcomeOf } from './outcome-of.ts';
import { type ToolResponse } from './tool-response.ts';
import { toolResultForModel } from './tool-result-for-model.ts';

/**
 * A model-visible result with its kind, for frameworks whose tool results are typed (the AI
 * SDK's tool outputs have these shapes).
 */
export type TypedModelResult =
  | { readonly type: 'text'; readonly value: string }
  | { readonly type: 'json'; readonly value: unknown }
  | { readonly type: 'error-text'; readonly value: string }
  | { readonly type: 'execution-denied'; readonly reason: string };

/**
 * One response worded by `toolResultForModel`, with its kind: success and partial as text
 * (success as JSON when the tool returned only data), an error as `error-text` that starts with
 * its code, a denial as `execution-denied` whose reason says the call did not run.
 */
export function typedResultForModel(
  response: ToolResponse,
  toolName: string,
): TypedModelResult {
  const { content, isError } = toolResultForModel(response, toolName);
  const outcome = outcomeOf(response);
  if (outcome === 'denied')
    return { type: 'execution-denied', reason: content };
  if (isError) return { type: 'error-text', value: content };
  if (outcome === 'success' && response.text === '' && 'data' in response) {
    // The content is the data's JSON only when it could be serialised; parsing it back gives a
    // plain JSON value (no BigInt, no cycles, no undefined).
    try {
      return { type: 'json', value: JSON.parse(content) as unknown };
    } catch {
      // toolResultForModel said in words why the data cannot be shown: send those words.
    }
  }
  return { type: 'text', value: content };
}
