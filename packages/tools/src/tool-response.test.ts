import { describe, expect, it } from 'vitest';
import { ToolProtocolError } from './tool-protocol-error.ts';
import { ToolResponse } from './tool-response.ts';

describe('ToolResponse.success', () => {
  it('builds a plain success with zeroed stats and no data key', () => {
    const response = ToolResponse.success('done');
    expect(response).toEqual({
      status: 'success',
      text: 'done',
      stats: { timeMs: 0 },
    });
    expect('data' in response).toBe(false);
    expect('context' in response).toBe(false);
    expect(Object.getPrototypeOf(response)).toBe(Object.prototype);
  });

  it('keeps null, empty and absent data distinct', () => {
    expect(ToolResponse.success('x', { data: null }).data).toBeNull();
    expect(ToolResponse.success('x', { data: '' }).data).toBe('');
    expect(ToolResponse.success('x', { data: [] }).data).toEqual([]);
    expect('data' in ToolResponse.success('x', { data: undefined })).toBe(true);
    expect('data' in ToolResponse.success('x', {})).toBe(false);
  });

  it('keeps stats and context', () => {
    const response = ToolResponse.success('x', {
      stats: { timeMs: 12, tokens: 40 },
      context: { toolName: 'read', callId: 'c1', params: { path: 'a' } },
    });
    expect(response.stats).toEqual({ timeMs: 12, tokens: 40 });
    expect(response.context).toEqual({
      toolName: 'read',
      callId: 'c1',
      params: { path: 'a' },
    });
  });

  it('rejects a non-string text', () => {
    expect(() => ToolResponse.success(42 as unknown as string)).toThrow(
      /text must be a string/,
    );
  });
});

describe('ToolResponse.partial', () => {
  it('requires a machine-readable reason', () => {
    const response = ToolResponse.partial('first 10 lines', {
      reason: 'truncated',
      data: { lines: 10 },
    });
    expect(response).toMatchObject({
      status: 'partial',
      reason: 'truncated',
      data: { lines: 10 },
    });
    expect(() => ToolResponse.partial('x', { reason: ' ' })).toThrow(
      ToolProtocolError,
    );
    expect(() => ToolResponse.partial('x', {} as { reason: string })).toThrow(
      /reason is required/,
    );
  });
});

describe('ToolResponse.error', () => {
  it('fills retryable from the code metadata and uses the message as text', () => {
    const response = ToolResponse.error('TIMEOUT', 'took too long');
    expect(response).toEqual({
      status: 'error',
      text: 'took too long',
      stats: { timeMs: 0 },
      errorInfo: { code: 'TIMEOUT', message: 'took too long', retryable: true },
    });
    expect(ToolResponse.error('NOT_FOUND', 'gone').errorInfo.retryable).toBe(
      false,
    );
  });

  it('takes explicit retry hints, details, data and text', () => {
    const response = ToolResponse.error('RATE_LIMIT', 'slow down', {
      retryable: false,
      retryAfterMs: 2000,
      details: { limit: 10 },
      data: { partialRows: [] },
      text: 'Rate limited; try in 2 s',
    });
    expect(response.errorInfo).toEqual({
      code: 'RATE_LIMIT',
      message: 'slow down',
      retryable: false,
      retryAfterMs: 2000,
      details: { limit: 10 },
    });
    expect(response.text).toBe('Rate limited; try in 2 s');
    expect(response.data).toEqual({ partialRows: [] });
  });

  it('rejects an unknown code, naming the valid ones', () => {
    let thrown: unknown;
    try {
      ToolResponse.error('NOPE' as 'TIMEOUT', 'x');
    } catch (error: unknown) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ToolProtocolError);
    expect((thrown as ToolProtocolError).field).toBe('errorInfo.code');
    expect((thrown as Error).message).toMatch(
      /unknown code "NOPE".*NOT_FOUND.*RATE_LIMIT/,
    );
  });

  it('rejects an empty message', () => {
    expect(() => ToolResponse.error('TIMEOUT', '')).toThrow(
      /non-empty message/,
    );
  });
});

describe('ToolResponse.denied', () => {
  it('is an ACCESS_DENIED error with the denial marker, never retryable', () => {
    const response = ToolResponse.denied('The user declined');
    expect(response.status).toBe('error');
    expect(response.errorInfo).toEqual({
      code: 'ACCESS_DENIED',
      message: 'The user declined',
      retryable: false,
      denied: true,
    });
  });
});

describe('ToolResponse.fromThrown', () => {
  it('classifies what was thrown and keeps data and context', () => {
    const thrown = Object.assign(new Error('slow down'), {
      status: 429,
      headers: { 'retry-after': '2' },
    });
    const response = ToolResponse.fromThrown(thrown, {
      data: { page: 1 },
      context: { toolName: 't' },
    });
    expect(response).toEqual({
      status: 'error',
      text: 'slow down',
      data: { page: 1 },
      stats: { timeMs: 0 },
      context: { toolName: 't' },
      errorInfo: {
        code: 'RATE_LIMIT',
        message: 'slow down',
        retryable: true,
        retryAfterMs: 2000,
        details: { status: 429 },
      },
    });
  });

  it('marks a caller abort as cancelled, and survives hostile values', () => {
    const controller = new AbortController();
    controller.abort();
    expect(
      ToolResponse.fromThrown(controller.signal.reason).errorInfo,
    ).toMatchObject({ code: 'EXECUTION_ERROR', cancelled: true });
    expect(ToolResponse.fromThrown(undefined).errorInfo.code).toBe(
      'EXECUTION_ERROR',
    );
  });
});
