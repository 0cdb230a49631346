import { runWireConformance } from '../wire-conformance.case.ts';
import { openaiResponses } from './openai-responses.ts';

interface Body {
  input: Record<string, unknown>[];
  tools?: unknown;
}

runWireConformance({
  name: 'openai-responses',
  model: (url, retry) =>
    openaiResponses({
      baseURL: `${url}/v1`,
      apiKey: 'test-key',
      model: 'gpt-test',
      ...retry,
    }),
  toolResults: (body) =>
    (body as Body).input
      .filter((item) => item['type'] === 'function_call_output')
      .map((item) => ({
        id: String(item['call_id']),
        content: item['output'],
        isError: undefined,
      })),
  toolsSent: (body) => (body as Body).tools,
  hasErrorChannel: false,
  // response.created, response.in_progress, output_item.added, content_part.added.
  framesBeforeContent: 4,
  framesThroughFirstText: 5,
  overloaded: { status: 503, code: 'server_error', message: 'Overloaded' },
  badRequestCode: 'invalid_request_error',
});
