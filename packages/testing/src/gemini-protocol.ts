import type {
  HistoryEvent,
  ProviderError,
  ProviderProtocol,
} from './provider-protocol.ts';
import { render } from './gemini-render.ts';
import { checkThoughtSignatures } from './gemini-thought-signatures.ts';
import type { SentState } from './sent-state.ts';

// Gemini's shapes as documented at https://ai.google.dev/api/generate-content (request,
// GenerateContentResponse, FinishReason) and https://ai.google.dev/gemini-api/docs/troubleshooting
// (error statuses).

type JsonObject = Record<string, unknown>;

const PATH =
  /^\/v1(?:beta)?\/models\/([^/:]+):(streamGenerateContent|generateContent)$/;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Google's canonical status name for each HTTP status. */
function statusName(status: number): string {
  switch (status) {
    case 400:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 413:
      return 'INVALID_ARGUMENT';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT';
  }
}

function invalid(message: string): ProviderError {
  return { status: 400, code: 'INVALID_ARGUMENT', message };
}

function partsOf(content: JsonObject): readonly JsonObject[] {
  const parts = content['parts'];
  return Array.isArray(parts) ? parts.filter(isObject) : [];
}

function textOf(parts: readonly JsonObject[]): string {
  return parts
    .map((part) => (typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

/** The model-visible text and the error flag of one `functionResponse.response`. */
function resultOf(response: unknown): { content: unknown; isError: boolean } {
  if (!isObject(response)) return { content: response, isError: false };
  const error = response['error'];
  if (error !== undefined) {
    return {
      content: isObject(error) ? error['message'] : error,
      isError: true,
    };
  }
  // Without `output` or `error`, the whole response is the output.
  return {
    content: 'output' in response ? response['output'] : response,
    isError: false,
  };
}

function historyOf(body: JsonObject): readonly HistoryEvent[] {
  const events: HistoryEvent[] = [];
  const system = body['systemInstruction'];
  if (isObject(system)) {
    events.push({ type: 'system', text: textOf(partsOf(system)) });
  }
  let lastCallIds: string[] = [];
  for (const content of (body['contents'] as unknown[]).filter(isObject)) {
    const parts = partsOf(content);
    if (content['role'] === 'model') {
      const calls = parts
        .map((part) => part['functionCall'])
        .filter(isObject)
        .map((call) => ({
          id: typeof call['id'] === 'string' ? call['id'] : '',
          name: typeof call['name'] === 'string' ? call['name'] : '',
        }));
      lastCallIds = calls.map((call) => call.id);
      events.push({ type: 'assistant', text: textOf(parts), calls });
      continue;
    }
    const responses = parts.map((part) => part['functionResponse']);
    responses.filter(isObject).forEach((response, position) => {
      events.push({
        type: 'tool-result',
        // Gemini pairs responses with calls by position when the call had no id.
        callId:
          typeof response['id'] === 'string'
            ? response['id']
            : (lastCallIds[position] ?? ''),
        ...resultOf(response['response']),
      });
    });
    if (parts.some((part) => typeof part['text'] === 'string')) {
      events.push({ type: 'user', text: textOf(parts) });
    }
  }
  return events;
}

function checkToolHistory(
  body: unknown,
  sent: SentState,
  path: string,
): ProviderError | undefined {
  const signatures = checkThoughtSignatures(
    body,
    sent,
    PATH.exec(path)?.[1] ?? '',
  );
  if (signatures !== undefined) return signatures;
  if (!isObject(body) || !Array.isArray(body['contents'])) return undefined;
  const contents = (body['contents'] as unknown[]).filter(isObject);
  for (let index = 0; index < contents.length; index += 1) {
    const content = contents[index];
    if (content?.['role'] !== 'model') continue;
    const calls = partsOf(content).filter((part) => 'functionCall' in part);
    const next = contents[index + 1];
    if (calls.length === 0 || next === undefined) continue;
    const responses = partsOf(next).filter(
      (part) => 'functionResponse' in part,
    );
    if (responses.length !== calls.length) {
      return invalid(
        'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
      );
    }
  }
  return undefined;
}

/** Gemini (Generative Language API): `POST /v1beta/models/{model}:streamGenerateContent?alt=sse`. */
export const geminiProtocol: ProviderProtocol = {
  provider: 'gemini',
  requestIdHeader: 'x-goog-request-id',
  matches: (path) => PATH.test(path),
  resembles: (path) => path.includes('/models/'),
  codeFor: statusName,
  contentFilterError: () =>
    invalid('The prompt was blocked by the safety settings (SAFETY).'),
  checkAuth(headers, apiKey) {
    const key = headers['x-goog-api-key'];
    if (key === undefined || key === '') {
      return {
        status: 403,
        code: 'PERMISSION_DENIED',
        message:
          "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
      };
    }
    if (apiKey !== undefined && key !== apiKey) {
      return invalid('API key not valid. Please pass a valid API key.');
    }
    return undefined;
  },
  parse(body, path) {
    const match = PATH.exec(path);
    if (!isObject(body)) {
      return invalid('Invalid JSON payload received. Expected an object.');
    }
    const contents = body['contents'];
    if (!Array.isArray(contents) || contents.length === 0) {
      return invalid(
        '* GenerateContentRequest.contents: contents is not specified',
      );
    }
    if (!contents.every(isObject)) {
      return invalid('Invalid JSON payload received. Unknown name "contents".');
    }
    return {
      model: match?.[1] ?? '',
      stream: match?.[2] === 'streamGenerateContent',
      includeUsage: true,
      history: historyOf(body),
      body,
    };
  },
  checkToolHistory,
  errorBody(error) {
    return {
      error: {
        code: error.status,
        message: error.message,
        status: error.code ?? statusName(error.status),
      },
    };
  },
  render(reply, options) {
    return {
      contentType: options.request.stream
        ? 'text/event-stream'
        : 'application/json',
      frames: render(reply, options),
    };
  },
  streamErrorFrame(error) {
    return `data: ${JSON.stringify(this.errorBody(error, ''))}\r\n\r\n`;
  },
  malformedFrame() {
    return `data: {"candidates": [{"content": {"parts": [\r\n\r\n`;
  },
  malformedBodyError() {
    return invalid('Invalid JSON payload received. Unexpected token.');
  },
};
