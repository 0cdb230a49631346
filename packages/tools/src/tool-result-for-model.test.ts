import { ToolResponse } from './tool-response.ts';
import { describe, expect, it } from 'vitest';
import { toolResultForModel } from './tool-result-for-model.ts';
import { SecretRedactor } from './secret-redactor.ts';

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

describe('toolResultForModel: a failed call carries its own detail, within a budget', () => {
  const advice =
    'Retrying the same call will not help: change the arguments or the approach.';

  it('sends the text after the message when the text says more', () => {
    const response = ToolResponse.error('EXECUTION_ERROR', 'Build failed', {
      retryable: false,
      text: 'Build failed\nsrc/a.ts(3,1): error TS2304: Cannot find name "x".',
    });
    expect(toolResultForModel(response, 'build').content).toBe(
      `[EXECUTION_ERROR] Build failed\n--- detail ---\nsrc/a.ts(3,1): error TS2304: Cannot find name "x".\n${advice}`,
    );
  });

  it('sends a text that does not repeat the message whole', () => {
    const response = ToolResponse.error('INVALID_FORMAT', 'Bad row', {
      text: 'row 7: "age" must be a number',
    });
    expect(toolResultForModel(response, 'import').content).toContain(
      '--- detail ---\nrow 7: "age" must be a number\n',
    );
  });

  it('adds nothing when the text is the message', () => {
    const response = ToolResponse.error('NOT_FOUND', 'No file at a.txt');
    expect(toolResultForModel(response, 'read').content).toBe(
      `[NOT_FOUND] No file at a.txt\n${advice}`,
    );
  });

  it("sends the tail of a process's stdout and stderr, each within the budget, with how much was cut", () => {
    const stdout = `${'x'.repeat(10_000)}\nAssertionError: expected 5 to be 4\n`;
    const response = ToolResponse.error(
      'EXECUTION_ERROR',
      'The command exited with code 1',
      {
        retryable: false,
        data: { exitCode: 1, stdout, stderr: 'npm ERR! Test failed.\n' },
        text: `The command exited with code 1\n${stdout}`,
      },
    );
    const { content } = toolResultForModel(response, 'shell');
    const kept = 4096;
    const cut = Buffer.byteLength(stdout) - kept;
    expect(content).toBe(
      [
        '[EXECUTION_ERROR] The command exited with code 1',
        `--- stdout ---\n[… ${cut} earlier bytes cut …]\n${stdout.slice(-kept)}`,
        '--- stderr ---\nnpm ERR! Test failed.\n',
        advice,
      ].join('\n'),
    );
    expect(content).toContain('AssertionError: expected 5 to be 4');
    expect(Buffer.byteLength(content)).toBeLessThan(2 * kept + 400);
  });

  it('sends the start of an HTTP body, cut at the budget', () => {
    const body = `{"error":"quota exceeded"}${' '.repeat(9000)}END`;
    const response = ToolResponse.error('RATE_LIMIT', 'HTTP 429', {
      data: { status: 429, body },
    });
    const { content } = toolResultForModel(response, 'http_fetch', {
      maxDetailBytes: 100,
    });
    expect(content).toBe(
      `[RATE_LIMIT] HTTP 429\n--- body ---\n${body.slice(0, 100)}\n[… ${Buffer.byteLength(body) - 100} more bytes cut …]\nA retry may succeed.`,
    );
    expect(content).not.toContain('END');
  });

  it('never splits a character at the cut', () => {
    const response = ToolResponse.error('EXECUTION_ERROR', 'failed', {
      data: { stdout: 'é'.repeat(10), stderr: '' },
    });
    // 5 bytes of 2-byte characters: the tail keeps 2 whole characters, not 2.5.
    const { content } = toolResultForModel(response, 'shell', {
      maxDetailBytes: 5,
    });
    expect(content).toContain('[… 16 earlier bytes cut …]\néé\n');
    expect(content).not.toContain('\uFFFD');
  });

  it('sends no detail with a budget of 0, and refuses a budget that is not a whole number', () => {
    const response = ToolResponse.error('EXECUTION_ERROR', 'failed', {
      text: 'failed\nmore',
    });
    expect(
      toolResultForModel(response, 't', { maxDetailBytes: 0 }).content,
    ).not.toContain('more');
    for (const bad of [-1, 1.5, Number.NaN]) {
      expect(() =>
        toolResultForModel(response, 't', { maxDetailBytes: bad }),
      ).toThrow(RangeError);
    }
  });

  it('survives data with a throwing getter', () => {
    const data = {
      get stdout(): string {
        throw new Error('boom');
      },
    };
    const response = ToolResponse.error('EXECUTION_ERROR', 'failed', {
      data,
      text: 'failed\nthe text still speaks',
    });
    expect(toolResultForModel(response, 't').content).toContain(
      'the text still speaks',
    );
  });
});

describe('toolResultForModel: the data-as-JSON fallback is censored', () => {
  it('censors secret-looking keys at any depth', () => {
    const response = ToolResponse.success('', {
      data: { apiKey: 'sk-live-1', nested: { bearer: 'b-2', rows: [1] } },
    });
    const { content } = toolResultForModel(response, 't');
    expect(content).toBe(
      '{"apiKey":"[REDACTED]","nested":{"bearer":"[REDACTED]","rows":[1]}}',
    );
  });

  it("uses the caller's redactor, with its extra keys", () => {
    const response = ToolResponse.partial('', {
      reason: 'truncated',
      data: { pin: '1234', rows: 2 },
    });
    const { content } = toolResultForModel(response, 't', {
      redactor: new SecretRedactor({ extraKeys: ['pin'] }),
    });
    expect(content).toContain('{"pin":"[REDACTED]","rows":2}');
  });

  it('says the data cannot be shown when it holds a BigInt', () => {
    const response = ToolResponse.success('', { data: { n: 1n } });
    expect(toolResultForModel(response, 't').content).toBe(
      '(The tool succeeded; its data could not be shown as JSON.)',
    );
  });
});
