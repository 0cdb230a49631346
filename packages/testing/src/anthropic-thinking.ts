import type { ProviderError } from './provider-protocol.ts';
import type { ScriptedReasoning, ScriptedReply } from './scripted-reply.ts';
import type { SentState } from './sent-state.ts';

// Anthropic extended thinking, as documented at
// https://docs.claude.com/en/docs/build-with-claude/extended-thinking (budget and adaptive
// forms, thinking blocks kept unmodified with tool use, signature_delta) and
// https://docs.claude.com/en/docs/build-with-claude/adaptive-thinking. Error texts are the
// API's own, as quoted in public reports, e.g.
// https://github.com/n8n-io/n8n/issues/22550 (a final assistant message without its thinking
// block), https://github.com/kaitranntt/ccs/issues/415 (an edited signature) and
// https://github.com/liuw1535/antigravity2api-nodejs/issues/149 (budget not below max_tokens).

type JsonObject = Record<string, unknown>;

const docs =
  'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): ProviderError {
  return { status: 400, code: 'invalid_request_error', message };
}

/** The key under which the blocks sent before a tool_use are remembered. */
function toolUseKey(id: string): string {
  return `anthropic:tool_use:${id}`;
}

/** A scripted reasoning block as it goes on the wire (and must come back). */
export function thinkingBlockJson(block: ScriptedReasoning): JsonObject {
  return block.type === 'thinking'
    ? { type: 'thinking', thinking: block.thinking, signature: block.signature }
    : { type: 'redacted_thinking', data: block.data };
}

/** Records the thinking blocks sent with each tool_use, for the strict replay check. */
export function rememberThinking(reply: ScriptedReply, sent: SentState): void {
  const blocks = (reply.reasoning ?? []).map(thinkingBlockJson);
  for (const call of reply.toolCalls) {
    sent.remember(toolUseKey(call.id), blocks);
  }
}

/** Whether the request turns thinking on, or the 400 for a malformed `thinking` param. */
export function readThinkingParam(
  body: JsonObject,
): 'on' | 'off' | ProviderError {
  const thinking = body['thinking'];
  if (thinking === undefined || thinking === null) return 'off';
  if (!isObject(thinking)) {
    return invalid('thinking: Input should be a valid dictionary or object');
  }
  switch (thinking['type']) {
    case 'disabled':
      return 'off';
    case 'adaptive':
      return 'on';
    case 'enabled': {
      const budget = thinking['budget_tokens'];
      if (typeof budget !== 'number' || !Number.isInteger(budget)) {
        return invalid('thinking.enabled.budget_tokens: Field required');
      }
      if (budget < 1024) {
        return invalid(
          'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
        );
      }
      const maxTokens = body['max_tokens'];
      if (typeof maxTokens === 'number' && budget >= maxTokens) {
        return invalid(
          `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${docs}#max-tokens-and-context-window-size`,
        );
      }
      return 'on';
    }
    default:
      return invalid(
        `thinking: Input tag '${String(thinking['type'])}' found using 'type' does not match any of the expected tags: 'disabled', 'enabled', 'adaptive'`,
      );
  }
}

function blocksOf(message: JsonObject): readonly JsonObject[] {
  const content = message['content'];
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function sameBlock(sent: JsonObject, got: JsonObject | undefined): boolean {
  if (got === undefined || got['type'] !== sent['type']) return false;
  return sent['type'] === 'thinking'
    ? got['thinking'] === sent['thinking'] &&
        got['signature'] === sent['signature']
    : got['data'] === sent['data'];
}

function isThinking(block: JsonObject | undefined): boolean {
  return (
    block?.['type'] === 'thinking' || block?.['type'] === 'redacted_thinking'
  );
}

/**
 * Strict mode: with thinking on, the last assistant message (the one whose tool_use the
 * request answers) must start with the thinking blocks the server sent, unmodified; with
 * thinking off, an assistant message in the final position may not contain thinking.
 */
export function checkThinkingReplay(
  body: unknown,
  sent: SentState,
): ProviderError | undefined {
  if (!isObject(body) || !Array.isArray(body['messages'])) return undefined;
  const mode = readThinkingParam(body);
  if (typeof mode !== 'string') return undefined;
  const messages = (body['messages'] as unknown[]).filter(isObject);
  let index = -1;
  messages.forEach((message, position) => {
    if (message['role'] === 'assistant') index = position;
  });
  const assistant = messages[index];
  if (assistant === undefined) return undefined;
  const blocks = blocksOf(assistant);
  if (mode === 'off') {
    const found = blocks.findIndex(isThinking);
    return index === messages.length - 1 && found >= 0
      ? invalid(
          `messages.${index}.content.${found}: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`,
        )
      : undefined;
  }
  const toolUse = blocks.find((block) => block['type'] === 'tool_use');
  if (toolUse === undefined) return undefined;
  const id = typeof toolUse['id'] === 'string' ? toolUse['id'] : '';
  // A tool_use this server never sent must still start with a thinking block, as the real
  // API requires; one it sent must start with exactly the blocks sent with it.
  const expected = sent.has(toolUseKey(id))
    ? (sent.recall(toolUseKey(id)) as readonly JsonObject[])
    : [{ type: 'thinking' }];
  if (expected.length === 0) return undefined;
  if (!isThinking(blocks[0])) {
    return invalid(
      `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(blocks[0]?.['type'])}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${docs}`,
    );
  }
  if (!sent.has(toolUseKey(id))) return undefined;
  const broken = expected.findIndex(
    (block, position) => !sameBlock(block, blocks[position]),
  );
  if (broken < 0) return undefined;
  const got = blocks[broken];
  // The API verifies each block's signature; the redacted-data wording is modelled on the
  // signature one (no public report of it was found).
  return invalid(
    got?.['type'] === 'redacted_thinking'
      ? `messages.${index}.content.${broken}: Invalid \`data\` in \`redacted_thinking\` block`
      : `messages.${index}.content.${broken}: Invalid \`signature\` in \`thinking\` block`,
  );
}
