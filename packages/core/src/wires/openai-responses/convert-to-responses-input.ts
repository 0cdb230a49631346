import { assistantParts } from '../../assistant-turn.ts';
import {
  type AssistantPart,
  type ChatMessage,
  type JsonValue,
  type ProviderData,
} from '../../chat-model.ts';

/** One Responses `input` item as JSON. */
export type ResponsesInputItem = Record<string, unknown>;

type AssistantMessage = Extract<ChatMessage, { role: 'assistant' }>;

/** The wire's own key in `providerData`: another wire's data is never read, never sent. */
export const PROVIDER_KEY = 'openai';

function own(
  data: ProviderData | undefined,
): Readonly<Record<string, JsonValue>> | undefined {
  return data?.[PROVIDER_KEY];
}

/**
 * A reasoning part as the `reasoning` input item it came from, when it can go back: with
 * `store: false` the item needs its `encrypted_content` (an item sent by id alone is looked up
 * server-side: "Item with id 'rs_…' not found. Items are not persisted when `store` is set to
 * false", https://github.com/openai/openai-agents-python/issues/919) and its `summary`, which
 * openai-node's `ResponseReasoningItem` marks required.
 */
function reasoningItem(
  part: Extract<AssistantPart, { type: 'reasoning' }>,
): ResponsesInputItem | undefined {
  const data = own(part.providerData);
  if (data === undefined) return undefined;
  const { id, encrypted_content: encrypted, summary } = data;
  if (typeof encrypted !== 'string' || encrypted === '') return undefined;
  return {
    type: 'reasoning',
    ...(typeof id === 'string' ? { id } : {}),
    encrypted_content: encrypted,
    summary: Array.isArray(summary) ? summary : [],
  };
}

/**
 * One assistant turn as output items, in the order the model produced them. Each reasoning
 * item goes back directly before the item it produced. Item ids (`msg_`, `fc_`) go back only
 * when the turn's reasoning does: an item sent by its id without its reasoning item is a 400
 * ("provided without its required 'reasoning' item",
 * https://github.com/0xPlaygrounds/rig/issues/751), a reasoning item without the item it
 * produced another ("without its required following item",
 * https://github.com/continuedev/continue/issues/8933); without reasoning the ids are not
 * needed (nothing is stored server-side).
 */
function assistantItems(message: AssistantMessage): ResponsesInputItem[] {
  const parts = assistantParts(message);
  const reasoning = new Map<AssistantPart, ResponsesInputItem>();
  let lost = false;
  for (const part of parts) {
    if (part.type !== 'reasoning') continue;
    const item = reasoningItem(part);
    if (item !== undefined) reasoning.set(part, item);
    else if (own(part.providerData) !== undefined) lost = true;
  }
  // One of this wire's reasoning items that cannot go back would leave the item it produced
  // unpaired: then the turn goes back as text and calls alone, ids and reasoning dropped.
  const withIds = reasoning.size > 0 && !lost;
  const items: ResponsesInputItem[] = [];
  for (const part of parts) {
    switch (part.type) {
      case 'reasoning': {
        const item = withIds ? reasoning.get(part) : undefined;
        if (item !== undefined) items.push(item);
        break;
      }
      case 'text': {
        const data = own(part.providerData);
        const id =
          withIds && typeof data?.['id'] === 'string' ? data['id'] : undefined;
        if (part.text === '' && id === undefined) break;
        items.push({
          role: 'assistant',
          content: [
            data?.['refusal'] === true
              ? { type: 'refusal', refusal: part.text }
              : { type: 'output_text', text: part.text },
          ],
          ...(id === undefined ? {} : { id }),
        });
        break;
      }
      case 'tool-call': {
        const { call } = part;
        const id = own(call.providerData)?.['id'];
        items.push({
          type: 'function_call',
          ...(withIds && typeof id === 'string' ? { id } : {}),
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
        });
        break;
      }
    }
  }
  return items;
}

/**
 * The conversation as Responses `input` items: user messages, each assistant turn's items
 * (reasoning, messages, function calls), and tool results as `function_call_output` matched by
 * `call_id`. The instructions travel in the request's `instructions` field instead.
 * https://platform.openai.com/docs/api-reference/responses/create
 */
export function convertToResponsesInput(
  messages: readonly ChatMessage[],
): ResponsesInputItem[] {
  const input: ResponsesInputItem[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        input.push({ role: 'user', content: message.content });
        break;
      case 'assistant':
        input.push(...assistantItems(message));
        break;
      case 'tool':
        // No error flag on the wire: a failed call's output itself says "[CODE] …".
        for (const result of message.results)
          input.push({
            type: 'function_call_output',
            call_id: result.callId,
            output: result.content,
          });
        break;
    }
  }
  return input;
}
