import type {
  HistoryEvent,
  ProviderError,
  ProviderProtocol,
} from './provider-protocol.ts';
import {
  checkThinkingReplay,
  readThinkingParam,
} from './anthropic-thinking.ts';
import { event, renderJson, renderStream } from './anthropic-render.ts';
import type { SentState } from './sent-state.ts';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Anthropic's documented `error.type` for each status. */
function errorTypeFor(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

function invalid(message: string): ProviderError {
  return { status: 400, code: 'invalid_request_error', message };
}

function blocksOf(content: unknown): readonly JsonObject[] {
  if (typeof content === 'string') {
    return [{ type: 'text', text: content }];
  }
  return Array.isArray(content) ? content.filter(isObject) : [];
}

function historyOf(body: JsonObject): readonly HistoryEvent[] {
  const events: HistoryEvent[] = [];
  const system = body['system'];
  if (system !== undefined) {
    events.push({
      type: 'system',
      text: blocksOf(system)
        .map((block) =>
          typeof block['text'] === 'string' ? block['text'] : '',
        )
        .join(''),
    });
  }
  for (const message of (body['messages'] as unknown[]).filter(isObject)) {
    const blocks = blocksOf(message['content']);
    const text = blocks
      .filter((block) => block['type'] === 'text')
      .map((block) => (typeof block['text'] === 'string' ? block['text'] : ''))
      .join('');
    if (message['role'] === 'assistant') {
      events.push({
        type: 'assistant',
        text,
        calls: blocks
          .filter((block) => block['type'] === 'tool_use')
          .map((block) => ({
            id: typeof block['id'] === 'string' ? block['id'] : '',
            name: typeof block['name'] === 'string' ? block['name'] : '',
          })),
      });
      continue;
    }
    for (const block of blocks) {
      if (block['type'] === 'tool_result') {
        events.push({
          type: 'tool-result',
          callId:
            typeof block['tool_use_id'] === 'string'
              ? block['tool_use_id']
              : '',
          content: block['content'],
          isError: block['is_error'] === true,
        });
      }
    }
    if (blocks.some((block) => block['type'] === 'text')) {
      events.push({ type: 'user', text });
    }
  }
  return events;
}

function checkToolHistory(
  body: unknown,
  sent: SentState,
): ProviderError | undefined {
  const thinking = checkThinkingReplay(body, sent);
  if (thinking !== undefined) return thinking;
  if (!isObject(body) || !Array.isArray(body['messages'])) {
    return undefined;
  }
  const messages = (body['messages'] as unknown[]).filter(isObject);
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index];
    if (message === undefined) {
      continue;
    }
    const blocks = blocksOf(message['content']);
    if (message['role'] === 'user') {
      const previous = index > 0 ? messages[index - 1] : undefined;
      const useIds =
        previous?.['role'] === 'assistant'
          ? blocksOf(previous['content'])
              .filter((block) => block['type'] === 'tool_use')
              .map((block) => block['id'])
          : [];
      const orphan = blocks.findIndex(
        (block) =>
          block['type'] === 'tool_result' &&
          !useIds.includes(block['tool_use_id']),
      );
      if (orphan >= 0) {
        return invalid(
          `messages.${index}.content.${orphan}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(blocks[orphan]?.['tool_use_id'])}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`,
        );
      }
      continue;
    }
    const useIds = blocks
      .filter((block) => block['type'] === 'tool_use')
      .map((block) => String(block['id']));
    if (useIds.length === 0) {
      continue;
    }
    const next = messages[index + 1];
    const resultIds = new Set(
      next?.['role'] === 'user'
        ? blocksOf(next['content'])
            .filter((block) => block['type'] === 'tool_result')
            .map((block) => String(block['tool_use_id']))
        : [],
    );
    const missing = useIds.filter((id) => !resultIds.has(id));
    // A trailing assistant turn is a prefill, not a broken history.
    if (missing.length > 0 && next !== undefined) {
      return invalid(
        `messages.${index + 1}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`,
      );
    }
  }
  return undefined;
}

/** Anthropic Messages: `POST /v1/messages`. */
export const anthropicProtocol: ProviderProtocol = {
  provider: 'anthropic',
  requestIdHeader: 'request-id',
  matches: (path) => path === '/v1/messages',
  resembles: (path) => path.includes('messages'),
  codeFor: errorTypeFor,
  contentFilterError: () => ({
    status: 400,
    code: 'invalid_request_error',
    message:
      'content_filter: the prompt was blocked by the content filtering policy.',
  }),
  checkAuth(headers, apiKey) {
    const bearer = /^Bearer\s+(\S+)$/i.exec(headers['authorization'] ?? '');
    const key = headers['x-api-key'] ?? bearer?.[1];
    if (key === undefined || key === '') {
      return {
        status: 401,
        code: 'authentication_error',
        message: 'x-api-key header is required',
      };
    }
    if (apiKey !== undefined && key !== apiKey) {
      return {
        status: 401,
        code: 'authentication_error',
        message: 'invalid x-api-key',
      };
    }
    if (headers['anthropic-version'] === undefined) {
      return invalid('anthropic-version: header is required');
    }
    return undefined;
  },
  parse(body) {
    if (!isObject(body)) {
      return invalid('The request body must be a JSON object.');
    }
    if (typeof body['model'] !== 'string') {
      return invalid('model: Field required');
    }
    if (typeof body['max_tokens'] !== 'number') {
      return invalid('max_tokens: Field required');
    }
    const messages = body['messages'];
    if (!Array.isArray(messages) || messages.length === 0) {
      return invalid('messages: Field required');
    }
    if (!messages.every(isObject)) {
      return invalid('messages: Input should be a list of message objects');
    }
    const thinking = readThinkingParam(body);
    if (typeof thinking !== 'string') {
      return thinking;
    }
    return {
      model: body['model'],
      stream: body['stream'] === true,
      includeUsage: true,
      history: historyOf(body),
      body,
    };
  },
  checkToolHistory,
  errorBody(error, requestId) {
    return {
      type: 'error',
      error: {
        type: error.code ?? errorTypeFor(error.status),
        message: error.message,
      },
      request_id: requestId,
    };
  },
  render(reply, options) {
    return options.request.stream
      ? {
          contentType: 'text/event-stream; charset=utf-8',
          frames: renderStream(reply, options),
        }
      : { contentType: 'application/json', frames: renderJson(reply, options) };
  },
  streamErrorFrame(error) {
    return event('error', {
      error: {
        type: error.code ?? errorTypeFor(error.status),
        message: error.message,
      },
    }).text;
  },
  malformedFrame(frame) {
    const name = /^event: (\S+)\n/.exec(frame.text)?.[1];
    return name === undefined
      ? `{"type":"message","content":[`
      : `event: ${name}\ndata: {"type":"${name}","index":0,"delta":{\n\n`;
  },
  malformedBodyError() {
    return invalid(
      'There was an error parsing the body of your request. Please make sure your request body is valid JSON.',
    );
  },
};
