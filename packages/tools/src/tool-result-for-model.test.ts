import { ToolResponse } from './tool-response.ts';
import { describe, expect, it } from 'vitest';
import { toolResultForModel } from './tool-result-for-model.ts';

describe('toolResultForModel: what the model reads for each outcome', () => {
  it.each([
    ['success: the text', ToolResponse.success('14'), '14', false],
    [
      'success with empty text: the data as JSON',
      ToolResponse.success('', { data: { rows: [1, 2] } }),
      '{"rows":[1,2]}',
      false,
    ],
    [
      'success with null data',
      ToolResponse.success('', { data: null }),
      'null',
      false,
    ],
    [
      'success with nothing at all',
      ToolResponse.success(''),
      '(The tool succeeded and returned no output.)',
      false,
    ],
    [
      'partial: a notice with the reason, then the text',
      ToolResponse.partial('1.23e+11', { reason: 'truncated' }),
      '[INCOMPLETE RESULT: truncated] This result is incomplete; do not present it as complete.\n1.23e+11',
      false,
    ],
    [
      'error: code, message and no-retry advice',
      ToolResponse.error(
        'INVALID_FORMAT',
        'Unknown symbol "abc" at position 4',
      ),
      '[INVALID_FORMAT] Unknown symbol "abc" at position 4\nRetrying the same call will not help: change the arguments or the approach.',
      true,
    ],
    [
      'error: retryable with a delay',
      ToolResponse.error('RATE_LIMIT', 'Too many requests', {
        retryAfterMs: 2500,
      }),
      '[RATE_LIMIT] Too many requests\nA retry may succeed after 3 s.',
      true,
    ],
    [
      'error: retryable',
      ToolResponse.error('TIMEOUT', 'Took too long'),
      '[TIMEOUT] Took too long\nA retry may succeed.',
      true,
    ],
    [
      'denied: not executed, and no error flag',
      ToolResponse.denied('The user declined.'),
      '[DENIED] This call was NOT executed. The user declined. Do not retry it unless the user asks.',
      false,
    ],
    [
      'an open circuit: unavailable for N s, use another way',
      ToolResponse.error('CIRCUIT_OPEN', 'open', { retryAfterMs: 30_000 }),
      '[CIRCUIT_OPEN] The tool "search" is unavailable for 30 s after repeated failures; it was not run. Use another way to proceed.',
      true,
    ],
    [
      'a half-open circuit whose trial is in flight: for now, not 0 s',
      ToolResponse.error('CIRCUIT_OPEN', 'trial in flight', {
        retryAfterMs: 0,
      }),
      '[CIRCUIT_OPEN] The tool "search" is unavailable for now after repeated failures; it was not run. Use another way to proceed.',
      true,
    ],
  ])('%s', (_label, response, content, isError) => {
    expect(toolResultForModel(response, 'search')).toEqual({
      content,
      isError,
    });
  });
});

describe('attempts', () => {
  it('says how many attempts a failed, retried call took', () => {
    const response = ToolResponse.error('NETWORK_ERROR', 'connection reset', {
      stats: { timeMs: 5, attempts: 3 },
    });
    expect(toolResultForModel(response, 'lookup').content).toContain(
      'connection reset (failed after 3 attempts)',
    );
    const once = ToolResponse.error('NETWORK_ERROR', 'connection reset', {
      stats: { timeMs: 5, attempts: 1 },
    });
    expect(toolResultForModel(once, 'lookup').content).not.toContain(
      'attempts',
    );
  });
});
