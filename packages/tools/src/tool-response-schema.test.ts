import { describe, expect, it } from 'vitest';
import { ToolProtocolError } from './tool-protocol-error.ts';
import { ToolResponse } from './tool-response.ts';

function fieldOf(run: () => unknown): string {
  try {
    run();
  } catch (error: unknown) {
    if (error instanceof ToolProtocolError)
      return `${error.field} | ${error.message}`;
    throw error;
  }
  throw new Error('expected a ToolProtocolError');
}

describe('wire form', () => {
  const samples = [
    ToolResponse.success('ok'),
    ToolResponse.success('ok', { data: null }),
    ToolResponse.success('', {
      data: { rows: [1, 2] },
      stats: { timeMs: 3, rows: 2 },
    }),
    ToolResponse.partial('half', { reason: 'truncated', data: 'abc' }),
    ToolResponse.error('RATE_LIMIT', 'later', {
      retryAfterMs: 100,
      details: { a: 1 },
    }),
    ToolResponse.denied('no', {
      context: { toolName: 't', callId: 'c', params: { x: 1 } },
    }),
    ToolResponse.error('EXECUTION_ERROR', 'cancelled', { cancelled: true }),
  ];

  it.each(samples)('round-trips $status through JSON', (response) => {
    const back = ToolResponse.fromJSON(ToolResponse.toJSON(response));
    expect(back).toEqual(response);
    expect('data' in back).toBe('data' in response);
    expect(Object.getPrototypeOf(back)).toBe(Object.prototype);
  });

  it('keeps unknown extra keys instead of dropping them', () => {
    const parsed = ToolResponse.parse({
      status: 'success',
      text: 'x',
      stats: { timeMs: 1 },
      extra: 7,
    });
    expect(parsed).toMatchObject({ extra: 7 });
  });

  it('names the field of invalid JSON, an unknown status and a missing errorInfo', () => {
    expect(fieldOf(() => ToolResponse.fromJSON('{"status":'))).toMatch(
      /^ \| Invalid ToolResponse: not valid JSON/,
    );
    expect(
      fieldOf(() =>
        ToolResponse.parse({ status: 'done', text: 'x', stats: { timeMs: 0 } }),
      ),
    ).toMatch(
      /^status \| Invalid ToolResponse: status: expected "success", "partial" or "error"/,
    );
    expect(
      fieldOf(() =>
        ToolResponse.parse({
          status: 'error',
          text: 'x',
          stats: { timeMs: 0 },
        }),
      ),
    ).toMatch(/^errorInfo \| Invalid ToolResponse: errorInfo: /);
  });

  it.each([
    ['a missing text', { status: 'success', stats: { timeMs: 0 } }, 'text'],
    ['missing stats', { status: 'success', text: 'x' }, 'stats'],
    [
      'a negative timeMs',
      { status: 'success', text: 'x', stats: { timeMs: -1 } },
      'stats.timeMs',
    ],
    [
      'a partial without reason',
      { status: 'partial', text: 'x', stats: { timeMs: 0 } },
      'reason',
    ],
    [
      'an unknown code',
      {
        status: 'error',
        text: 'x',
        stats: { timeMs: 0 },
        errorInfo: { code: 'OOPS', message: 'm', retryable: false },
      },
      'errorInfo.code',
    ],
    [
      'an empty error message',
      {
        status: 'error',
        text: 'x',
        stats: { timeMs: 0 },
        errorInfo: { code: 'TIMEOUT', message: '', retryable: true },
      },
      'errorInfo.message',
    ],
    [
      'a denial on another code',
      {
        status: 'error',
        text: 'x',
        stats: { timeMs: 0 },
        errorInfo: {
          code: 'NOT_FOUND',
          message: 'm',
          retryable: false,
          denied: true,
        },
      },
      'errorInfo.denied',
    ],
    [
      'errorInfo on a success',
      {
        status: 'success',
        text: 'x',
        stats: { timeMs: 0 },
        errorInfo: { code: 'TIMEOUT', message: 'm', retryable: true },
      },
      'errorInfo',
    ],
  ])('rejects %s, naming %s', (_label, value, field) => {
    expect(fieldOf(() => ToolResponse.parse(value)).split(' | ')[0]).toBe(
      field,
    );
  });

  it('rejects non-objects', () => {
    for (const value of [null, undefined, 'success', 42, []]) {
      expect(ToolResponse.safeParse(value).success).toBe(false);
    }
  });

  it('reports data that JSON cannot carry as a clear error', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(
      fieldOf(() =>
        ToolResponse.toJSON(ToolResponse.success('x', { data: 10n })),
      ),
    ).toMatch(/^data \| ToolResponse cannot be serialised to JSON/);
    expect(
      fieldOf(() =>
        ToolResponse.toJSON(ToolResponse.success('x', { data: cyclic })),
      ),
    ).toMatch(/^data \| /);
  });
});
