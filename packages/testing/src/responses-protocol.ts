import { openAiProtocol } from './openai-protocol.ts';
import type { ProviderError, ProviderProtocol } from './provider-protocol.ts';
import { expandInput, historyOf, isObject } from './responses-items.ts';
import { renderResponses } from './responses-render.ts';
import { checkResponsesInput } from './responses-strict.ts';

function invalid(message: string, param: string | null): ProviderError {
  return {
    status: 400,
    code: null,
    type: 'invalid_request_error',
    message,
    param,
  };
}

function sse(type: string, payload: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
}

/**
 * OpenAI Responses: `POST /v1/responses` (and `/responses`). Auth, error bodies and status
 * codes are OpenAI's, shared with Chat Completions.
 */
export const responsesProtocol: ProviderProtocol = {
  ...openAiProtocol,
  provider: 'openai-responses',
  matches: (path) => path === '/v1/responses' || path === '/responses',
  resembles: (path) => path.includes('/responses'),
  parse(body, _path, sent) {
    if (!isObject(body)) {
      return invalid('The request body must be a JSON object.', null);
    }
    if (typeof body['model'] !== 'string') {
      return invalid("Missing required parameter: 'model'.", 'model');
    }
    const input = body['input'];
    if (
      input !== undefined &&
      typeof input !== 'string' &&
      !(Array.isArray(input) && input.every(isObject))
    ) {
      return invalid(
        "Invalid type for 'input': expected one of a string or an array of input items.",
        'input',
      );
    }
    return {
      model: body['model'],
      stream: body['stream'] === true,
      includeUsage: true,
      history: historyOf(body, expandInput(body, sent)),
      body,
    };
  },
  checkToolHistory: (body, sent) => checkResponsesInput(body, sent),
  render(reply, options) {
    return {
      contentType: options.request.stream
        ? 'text/event-stream; charset=utf-8'
        : 'application/json',
      frames: renderResponses(reply, options),
    };
  },
  streamErrorFrame(error, fault) {
    if (fault?.event === 'response.failed') {
      return sse('response.failed', {
        sequence_number: 0,
        response: {
          object: 'response',
          status: 'failed',
          error: { code: error.code, message: error.message },
          output: [],
        },
      });
    }
    return sse('error', {
      sequence_number: 0,
      code: error.code,
      message: error.message,
      param: error.param ?? null,
    });
  },
  malformedFrame(frame) {
    const name = /^event: (\S+)\n/.exec(frame.text)?.[1];
    return name === undefined
      ? '{"id":"resp_broken","output":['
      : `event: ${name}\ndata: {"type":"${name}","delta":\n\n`;
  },
};
