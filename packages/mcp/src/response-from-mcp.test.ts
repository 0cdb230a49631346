import { countingProxy, throwingProxy } from '@candor/hostile-fixtures';
import { ToolResponse } from '@candor/tools';
import {
  ProtocolError,
  SdkError,
  SdkErrorCode,
} from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { outcomeEnvelope, readOutcomeEnvelope } from './outcome-envelope.ts';
import { responseFromMcp, responseFromThrown } from './response-from-mcp.ts';

function code(response: ToolResponse): string {
  return response.status === 'error'
    ? response.errorInfo.code
    : response.status;
}

describe('responseFromMcp', () => {
  it.each([
    ['null', null],
    ['a string', 'ok'],
    ['an array', []],
    ['content that is not a list', { content: 'text' }],
    ['no content', { isError: false }],
    ['isError that is not a boolean', { content: [], isError: 'false' }],
  ])('answers INTERNAL_ERROR, never success, to %s', (_label, result) => {
    expect(code(responseFromMcp(result, 'tool'))).toBe('INTERNAL_ERROR');
  });

  it('answers INTERNAL_ERROR, never a throw, to a result whose getters throw', () => {
    const throwing = (): never => {
      throw new Error('hostile getter');
    };
    const proxy = (): object => throwingProxy('hostile getter').logger;
    const results = [
      proxy(),
      { content: [proxy()] },
      { content: [], structuredContent: proxy() },
      {
        get content(): never {
          return throwing();
        },
      },
    ];
    for (const result of results) {
      const response = responseFromMcp(result, 'tool');
      expect(code(response)).toBe('INTERNAL_ERROR');
      expect(response.text).toContain('hostile getter');
    }
  });

  it('joins text blocks and names the others', () => {
    const response = responseFromMcp(
      {
        content: [
          { type: 'text', text: 'one' },
          { type: 'image', data: 'AAAA', mimeType: 'image/png' },
          { type: 'resource_link', uri: 'file:///x', name: 'x' },
          { type: 'resource', resource: { uri: 'file:///y', text: 'inside' } },
        ],
      },
      'tool',
    );
    expect(response.text).toBe(
      'one\n[image: image/png]\n[resource: file:///x]\ninside',
    );
  });

  it('keeps foreign structuredContent as data', () => {
    const response = responseFromMcp(
      {
        content: [{ type: 'text', text: 'hi' }],
        structuredContent: { temperature: 21 },
      },
      'tool',
    );
    expect(response.status).toBe('success');
    expect('data' in response && response.data).toEqual({ temperature: 21 });
  });

  it('an envelope that says error is an error even when isError is false', () => {
    const response = responseFromMcp(
      {
        content: [],
        isError: false,
        structuredContent: { status: 'error', code: 'CONFLICT' },
      },
      'tool',
    );
    expect(code(response)).toBe('CONFLICT');
  });

  it('an unknown code in an error envelope falls back to EXECUTION_ERROR', () => {
    const response = responseFromMcp(
      {
        content: [{ type: 'text', text: 'nope' }],
        isError: true,
        structuredContent: { status: 'error', code: 'TEAPOT' },
      },
      'tool',
    );
    expect(code(response)).toBe('EXECUTION_ERROR');
    expect(response.status === 'error' && response.errorInfo.message).toBe(
      'nope (the server\'s error code "TEAPOT" is not a Candor code)',
    );
    expect(response.status === 'error' && response.errorInfo.details).toEqual({
      mcpCode: 'TEAPOT',
    });
  });

  it.each([
    ['an unknown code', { status: 'error', code: 'TEAPOT' }],
    ['no code', { status: 'error' }],
    ['a code that is not a string', { status: 'error', code: 418 }],
  ])(
    'an error envelope with %s is EXECUTION_ERROR even when isError is false',
    (_label, structuredContent) => {
      for (const isError of [false, undefined]) {
        const response = responseFromMcp(
          {
            content: [{ type: 'text', text: 'nope' }],
            ...(isError === undefined ? {} : { isError }),
            structuredContent,
          },
          'tool',
        );
        expect(code(response)).toBe('EXECUTION_ERROR');
      }
    },
  );

  it("cuts a hostile server's huge code word to 100 characters", () => {
    const response = responseFromMcp(
      {
        content: [{ type: 'text', text: 'nope' }],
        structuredContent: { status: 'error', code: 'X'.repeat(1_000_000) },
      },
      'tool',
    );
    if (response.status !== 'error') throw new Error('not an error');
    expect(response.errorInfo.code).toBe('EXECUTION_ERROR');
    expect(response.errorInfo.details).toEqual({ mcpCode: 'X'.repeat(100) });
    expect(response.errorInfo.message.length).toBeLessThan(200);
  });

  it.each(['done', 'ok', 'SUCCESS', 'failed', ''])(
    'a status word Candor does not know (%j) is PARTIAL unrecognised_status, never success',
    (status) => {
      const structuredContent = { status, data: { rows: 3 } };
      const response = responseFromMcp(
        {
          content: [{ type: 'text', text: 'said' }],
          isError: false,
          structuredContent,
        },
        'tool',
      );
      expect(response.status).toBe('partial');
      expect(response.status === 'partial' && response.reason).toBe(
        'unrecognised_status',
      );
      expect(response.text).toBe('said');
      expect('data' in response && response.data).toEqual(structuredContent);
    },
  );

  it('a success or partial envelope carrying an error code is PARTIAL contradictory_status', () => {
    for (const status of ['success', 'partial']) {
      const response = responseFromMcp(
        {
          content: [],
          isError: false,
          structuredContent: { status, code: 'NOT_FOUND' },
        },
        'tool',
      );
      expect(response.status === 'partial' && response.reason).toBe(
        'contradictory_status',
      );
    }
  });

  it.each(['success', 'partial'])(
    'isError true with a %s envelope is an error',
    (status) => {
      const response = responseFromMcp(
        {
          content: [{ type: 'text', text: 'fine?' }],
          isError: true,
          structuredContent: { status, reason: 'truncated' },
        },
        'tool',
      );
      expect(code(response)).toBe('EXECUTION_ERROR');
    },
  );

  it('a status that is not a string is foreign data (an HTTP status, say)', () => {
    const response = responseFromMcp(
      { content: [], structuredContent: { status: 200 } },
      'tool',
    );
    expect(response.status).toBe('success');
  });

  it('reads a changing status once: a Proxy cannot say error, then success', () => {
    let reads = 0;
    const structuredContent = new Proxy(
      {},
      {
        get: (_target, key) =>
          key === 'status' ? (reads++ === 0 ? 'error' : 'success') : undefined,
        has: () => false,
        // An own enumerable key, as in JSON: the copy is what is read.
        ownKeys: () => ['status'],
        getOwnPropertyDescriptor: () => ({
          value: 'unused',
          enumerable: true,
          configurable: true,
        }),
      },
    );
    const response = responseFromMcp(
      { content: [], isError: false, structuredContent },
      'tool',
    );
    expect(code(response)).toBe('EXECUTION_ERROR');
    expect(reads).toBe(1);
  });

  it('reads each field of a live result once, and never asks `in` first', () => {
    const envelope = countingProxy<Record<string, unknown>>({
      status: 'partial',
      code: 'TEAPOT',
      message: 'said',
      reason: 'truncated',
      text: 'some',
      retryable: false,
      retryAfterMs: 5,
      denied: false,
      cancelled: false,
      data: { rows: 1 },
    });
    const resource = countingProxy<Record<string, unknown>>({
      uri: 'file:///y',
      text: 'inside',
    });
    const response = responseFromMcp(
      {
        content: [{ type: 'resource', resource: resource.proxy }],
        structuredContent: envelope.proxy,
      },
      'tool',
    );
    // A partial envelope's own text wins over the content's; the content was read all the same.
    expect(response.status).toBe('partial');
    expect(response.text).toBe('some');
    for (const key of ['status', 'code', 'message', 'reason', 'text']) {
      expect(envelope.reads(key)).toBe(1);
    }
    for (const key of ['retryable', 'retryAfterMs', 'denied', 'data']) {
      expect(envelope.reads(key)).toBe(1);
      expect(envelope.asks(key)).toBe(0);
    }
    expect(resource.reads('text')).toBe(1);
  });

  it('reads the envelope without throwing through, whatever trap throws', () => {
    const response = responseFromMcp(
      { content: [], structuredContent: throwingProxy('trap down').logger },
      'tool',
    );
    expect(code(response)).toBe('INTERNAL_ERROR');
    expect(response.text).toContain('trap down');
  });

  it('answers INTERNAL_ERROR, never a success whose data throws later, to structuredContent that is not JSON', () => {
    const revocable = Proxy.revocable({}, {});
    revocable.revoke();
    const cycle: Record<string, unknown> = {};
    cycle['self'] = cycle;
    // No status to claim anything, so only the data carries the fault.
    const values: unknown[] = [
      new Proxy(
        {},
        {
          ownKeys: () => {
            throw new Error('keys down');
          },
        },
      ),
      { rows: [revocable.proxy] },
      cycle,
      { count: 1n },
    ];
    for (const structuredContent of values) {
      const response = responseFromMcp(
        { content: [{ type: 'text', text: 'fine' }], structuredContent },
        'tool',
      );
      expect(code(response)).toBe('INTERNAL_ERROR');
      expect(() => JSON.stringify(response)).not.toThrow();
    }
  });

  it('keeps a copy of structuredContent as data, not the live object', () => {
    let reads = 0;
    const structuredContent = {
      get rows(): number {
        reads += 1;
        return reads;
      },
    };
    const response = responseFromMcp(
      { content: [], structuredContent },
      'tool',
    );
    expect(response.status).toBe('success');
    expect(JSON.stringify(response.data)).toBe('{"rows":1}');
    expect(JSON.stringify(response.data)).toBe('{"rows":1}');
    expect(reads).toBe(1);
  });

  it('an error with no text still has a message', () => {
    const response = responseFromMcp({ content: [], isError: true }, 'tool');
    expect(response.status === 'error' && response.errorInfo.message).toContain(
      'without a message',
    );
  });
});

describe('responseFromThrown', () => {
  it.each([
    [new ProtocolError(-32601, 'no such method'), 'NOT_FOUND'],
    [new ProtocolError(-32602, 'bad params'), 'INVALID_PARAM'],
    [new ProtocolError(-32603, 'boom'), 'INTERNAL_ERROR'],
    [new ProtocolError(-32000, 'server-defined'), 'EXECUTION_ERROR'],
    [new SdkError(SdkErrorCode.ConnectionClosed, 'closed'), 'NETWORK_ERROR'],
    [new SdkError(SdkErrorCode.RequestTimeout, 'late'), 'TIMEOUT'],
    [new SdkError(SdkErrorCode.InvalidResult, 'bad'), 'INTERNAL_ERROR'],
    [
      Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }),
      'NETWORK_ERROR',
    ],
    [new TypeError('fetch failed'), 'NETWORK_ERROR'],
  ])('maps %s to %s', (error, expected) => {
    expect(code(responseFromThrown(error, 'tool'))).toBe(expected);
  });
});

describe('outcome envelopes', () => {
  it.each([
    ToolResponse.success('ok', { data: { a: 1 } }),
    ToolResponse.partial('some', { reason: 'truncated', data: [1] }),
    ToolResponse.error('RATE_LIMIT', 'slow', { retryAfterMs: 10 }),
    ToolResponse.denied('no'),
    ToolResponse.error('EXECUTION_ERROR', 'stopped', { cancelled: true }),
  ])('read back what they carry (%#)', (response) => {
    const envelope = outcomeEnvelope(response);
    expect(readOutcomeEnvelope(JSON.parse(JSON.stringify(envelope)))).toEqual(
      envelope,
    );
  });

  it.each([
    ['a foreign object', { temperature: 21 }],
    ['an unrecognised status word', { status: 'done' }],
    ['an array', ['success']],
    ['a string', 'success'],
  ])('are not read from %s', (_label, value) => {
    expect(readOutcomeEnvelope(value)).toBeUndefined();
  });

  it('read an error with no Candor code without one', () => {
    expect(readOutcomeEnvelope({ status: 'error', code: 'TEAPOT' })).toEqual({
      status: 'error',
    });
  });

  it('drop fields of the wrong type', () => {
    expect(
      readOutcomeEnvelope({
        status: 'success',
        retryAfterMs: -5,
        retryable: 'yes',
        reason: 3,
        denied: 'true',
      }),
    ).toEqual({ status: 'success' });
  });
});
