import {
  checkCompatSignatures,
  geminiCompatPath,
  rememberCompatSignatures,
} from './openai-extras.ts';
import { dataFrame, renderJson, renderStream } from './openai-render.ts';
import type {
  HistoryEvent,
  ProviderError,
  ProviderProtocol,
  RenderedReply,
} from './provider-protocol.ts';
import type { SentState } from './sent-state.ts';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string, param: string | null = null): ProviderError {
  return {
    status: 400,
    code: null,
    type: 'invalid_request_error',
    message,
    param,
  };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') {
    return content;
  }
  if (Array.isArray(content)) {
    return content
      .map((part: unknown) =>
        isObject(part) && typeof part['text'] === 'string' ? part['text'] : '',
      )
      .join('');
  }
  return '';
}

function toolCallsOf(
  message: JsonObject,
): readonly { readonly id: string; readonly name: string }[] {
  const calls = message['tool_calls'];
  if (!Array.isArray(calls)) {
    return [];
  }
  return calls.filter(isObject).map((call) => {
    const fn = isObject(call['function']) ? call['function'] : {};
    return {
      id: typeof call['id'] === 'string' ? call['id'] : '',
      name: typeof fn['name'] === 'string' ? fn['name'] : '',
    };
  });
}

function historyOf(messages: readonly JsonObject[]): readonly HistoryEvent[] {
  return messages.map((message): HistoryEvent => {
    switch (message['role']) {
      case 'system':
      case 'developer':
        return { type: 'system', text: textOf(message['content']) };
      case 'assistant':
        return {
          type: 'assistant',
          text: textOf(message['content']),
          calls: toolCallsOf(message),
        };
      case 'tool':
        return {
          type: 'tool-result',
          callId:
            typeof message['tool_call_id'] === 'string'
              ? message['tool_call_id']
              : '',
          content: message['content'],
          isError: false,
        };
      default:
        return { type: 'user', text: textOf(message['content']) };
    }
  });
}

function openAiType(status: number): string {
  if (status >= 500) {
    return 'server_error';
  }
  if (status === 429) {
    return 'requests';
  }
  return 'invalid_request_error';
}

function checkToolHistory(
  body: unknown,
  sent: SentState,
  path: string,
): ProviderError | undefined {
  if (!isObject(body) || !Array.isArray(body['messages'])) {
    return undefined;
  }
  const signatures = checkCompatSignatures(body, sent, path);
  if (signatures !== undefined) return signatures;
  const messages = (body['messages'] as unknown[]).filter(isObject);
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index];
    if (message === undefined) {
      continue;
    }
    if (message['role'] === 'tool') {
      const previous = messages
        .slice(0, index)
        .reverse()
        .find((candidate) => candidate['role'] !== 'tool');
      const callIds =
        previous?.['role'] === 'assistant'
          ? toolCallsOf(previous).map((call) => call.id)
          : [];
      if (!callIds.includes(String(message['tool_call_id']))) {
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${index}].role`,
        );
      }
    }
    const calls = toolCallsOf(message);
    if (message['role'] !== 'assistant' || calls.length === 0) {
      continue;
    }
    const answered = new Set<string>();
    for (const next of messages.slice(index + 1)) {
      if (next['role'] !== 'tool') {
        break;
      }
      answered.add(String(next['tool_call_id']));
    }
    const unanswered = calls
      .map((call) => call.id)
      .filter((id) => !answered.has(id));
    if (unanswered.length > 0) {
      return invalid(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${unanswered.join(', ')}`,
        'messages',
      );
    }
  }
  return undefined;
}

/** OpenAI Chat Completions: `POST /v1/chat/completions` (and `/chat/completions`). */
export const openAiProtocol: ProviderProtocol = {
  provider: 'openai',
  requestIdHeader: 'x-request-id',
  matches: (path) =>
    path === '/v1/chat/completions' ||
    path === '/chat/completions' ||
    path === geminiCompatPath,
  // The fallback shape for unknown paths.
  resembles: () => true,
  codeFor: () => null,
  contentFilterError: () => ({
    status: 400,
    code: 'content_filter',
    type: null,
    param: 'prompt',
    message:
      'The response was filtered due to the prompt triggering the content management policy (content_filter). Please modify your prompt and retry.',
  }),
  checkAuth(headers, apiKey) {
    const authorization = headers['authorization'] ?? '';
    const match = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (match === null) {
      return {
        status: 401,
        code: null,
        type: 'invalid_request_error',
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
      };
    }
    if (apiKey !== undefined && match[1] !== apiKey) {
      return {
        status: 401,
        code: 'invalid_api_key',
        type: 'invalid_request_error',
        message: 'Incorrect API key provided.',
      };
    }
    return undefined;
  },
  parse(body) {
    if (!isObject(body)) {
      return invalid('The request body must be a JSON object.');
    }
    if (typeof body['model'] !== 'string') {
      return invalid("Missing required parameter: 'model'.", 'model');
    }
    const messages = body['messages'];
    if (!Array.isArray(messages) || messages.length === 0) {
      return invalid("Missing required parameter: 'messages'.", 'messages');
    }
    const objects = messages.filter(isObject);
    if (objects.length !== messages.length) {
      return invalid(
        "Invalid type for 'messages': expected an array of objects.",
        'messages',
      );
    }
    const streamOptions = body['stream_options'];
    return {
      model: body['model'],
      stream: body['stream'] === true,
      includeUsage:
        isObject(streamOptions) && streamOptions['include_usage'] === true,
      history: historyOf(objects),
    };
  },
  checkToolHistory,
  errorBody(error) {
    return {
      error: {
        message: error.message,
        type: error.type === undefined ? openAiType(error.status) : error.type,
        param: error.param ?? null,
        code: error.code,
      },
    };
  },
  render(reply, options): RenderedReply {
    rememberCompatSignatures(reply, options.sent);
    return options.request.stream
      ? {
          contentType: 'text/event-stream; charset=utf-8',
          frames: renderStream(reply, options),
        }
      : {
          contentType: 'application/json',
          frames: renderJson(reply, options),
        };
  },
  streamErrorFrame(error) {
    return dataFrame({
      error: {
        message: error.message,
        type: error.type ?? openAiType(error.status),
        param: error.param ?? null,
        code: error.code,
      },
    }).text;
  },
  malformedFrame(frame) {
    // Keep the framing intact and break only the JSON, as a buggy proxy would.
    return frame.text.startsWith('data: ')
      ? `data: {"id":"chatcmpl-broken","choices":[{"delta":{"content":"\n\n`
      : `{"id":"chatcmpl-broken",`;
  },
  malformedBodyError() {
    return invalid(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)",
    );
  },
};
