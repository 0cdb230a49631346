import { everyTrapThrows } from '@candor/hostile-fixtures';
import { describe, expect, it } from 'vitest';
import { classifyError } from './classify-error.ts';
import { ToolError } from './tool-error.ts';
import { type ToolErrorCode } from './tool-error-code.ts';

function systemError(
  code: string,
  message = `${code}: something failed`,
): Error {
  return Object.assign(new Error(message), {
    code,
    errno: -1,
    syscall: 'open',
  });
}

function httpError(status: number, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(`Request failed with status ${status}`), {
    status,
    ...extra,
  });
}

const circular: Record<string, unknown> = { name: '' };
circular['self'] = circular;

const throwingToString = {
  toString() {
    throw new Error('no');
  },
};

const throwingGetters = Object.defineProperties(
  {},
  {
    message: {
      get() {
        throw new Error('getter');
      },
    },
    name: {
      get() {
        throw new Error('getter');
      },
    },
  },
);

const hostileProxy = everyTrapThrows('trap').proxy;

interface Row {
  label: string;
  thrown: unknown;
  code: ToolErrorCode;
  retryable: boolean;
  message?: RegExp;
  retryAfterMs?: number;
  cancelled?: true;
}

const table: Row[] = [
  {
    label: 'ToolError',
    thrown: new ToolError({ code: 'CONFLICT', message: 'stale write' }),
    code: 'CONFLICT',
    retryable: false,
    message: /^stale write$/,
  },
  {
    label: 'ToolError with hints',
    thrown: new ToolError({
      code: 'RATE_LIMIT',
      message: 'later',
      retryAfterMs: 900,
    }),
    code: 'RATE_LIMIT',
    retryable: true,
    retryAfterMs: 900,
  },
  {
    label: 'ENOENT',
    thrown: systemError('ENOENT'),
    code: 'NOT_FOUND',
    retryable: false,
    message: /^ENOENT/,
  },
  {
    label: 'ENOTDIR',
    thrown: systemError('ENOTDIR'),
    code: 'NOT_FOUND',
    retryable: false,
  },
  {
    label: 'EACCES',
    thrown: systemError('EACCES'),
    code: 'PERMISSION_DENIED',
    retryable: false,
  },
  {
    label: 'EPERM',
    thrown: systemError('EPERM'),
    code: 'PERMISSION_DENIED',
    retryable: false,
  },
  {
    label: 'EISDIR',
    thrown: systemError('EISDIR'),
    code: 'IS_DIRECTORY',
    retryable: false,
  },
  {
    label: 'EEXIST',
    thrown: systemError('EEXIST'),
    code: 'CONFLICT',
    retryable: false,
  },
  {
    label: 'ETIMEDOUT',
    thrown: systemError('ETIMEDOUT'),
    code: 'TIMEOUT',
    retryable: true,
  },
  {
    label: 'ECONNREFUSED',
    thrown: systemError('ECONNREFUSED'),
    code: 'NETWORK_ERROR',
    retryable: true,
  },
  {
    label: 'ECONNRESET',
    thrown: systemError('ECONNRESET'),
    code: 'NETWORK_ERROR',
    retryable: true,
  },
  {
    label: 'ENOTFOUND',
    thrown: systemError('ENOTFOUND'),
    code: 'NETWORK_ERROR',
    retryable: true,
  },
  {
    label: 'EAI_AGAIN',
    thrown: systemError('EAI_AGAIN'),
    code: 'NETWORK_ERROR',
    retryable: true,
  },
  {
    label: 'EPIPE',
    thrown: systemError('EPIPE'),
    code: 'NETWORK_ERROR',
    retryable: true,
  },
  {
    label: 'EHOSTUNREACH',
    thrown: systemError('EHOSTUNREACH'),
    code: 'NETWORK_ERROR',
    retryable: true,
  },
  {
    label: 'fetch failed with a refused socket as its cause',
    thrown: new TypeError('fetch failed', {
      cause: systemError('ECONNREFUSED'),
    }),
    code: 'NETWORK_ERROR',
    retryable: true,
    message: /^Connection refused by the server: .*\(ECONNREFUSED\)$/,
  },
  {
    label: 'DOMException TimeoutError',
    thrown: new DOMException(
      'The operation was aborted due to timeout',
      'TimeoutError',
    ),
    code: 'TIMEOUT',
    retryable: true,
  },
  {
    label: 'caller abort (DOMException AbortError)',
    thrown: new DOMException('This operation was aborted', 'AbortError'),
    code: 'EXECUTION_ERROR',
    retryable: false,
    cancelled: true,
    message: /cancelled by the caller/,
  },
  {
    label: 'Node AbortError (ABORT_ERR)',
    thrown: Object.assign(new Error('The operation was aborted'), {
      code: 'ABORT_ERR',
      name: 'AbortError',
    }),
    code: 'EXECUTION_ERROR',
    retryable: false,
    cancelled: true,
  },
  {
    label: 'AbortError whose cause is a timeout',
    thrown: Object.assign(new Error('aborted'), {
      name: 'AbortError',
      cause: new DOMException('timed out', 'TimeoutError'),
    }),
    code: 'TIMEOUT',
    retryable: true,
  },
  {
    label: 'HTTP 400',
    thrown: httpError(400),
    code: 'INVALID_PARAM',
    retryable: false,
  },
  {
    label: 'HTTP 422',
    thrown: httpError(422),
    code: 'INVALID_PARAM',
    retryable: false,
  },
  {
    label: 'HTTP 401',
    thrown: httpError(401),
    code: 'ACCESS_DENIED',
    retryable: false,
  },
  {
    label: 'HTTP 403 via statusCode',
    thrown: Object.assign(new Error('forbidden'), { statusCode: 403 }),
    code: 'ACCESS_DENIED',
    retryable: false,
  },
  {
    label: 'HTTP 404',
    thrown: httpError(404),
    code: 'NOT_FOUND',
    retryable: false,
  },
  {
    label: 'HTTP 410',
    thrown: httpError(410),
    code: 'NOT_FOUND',
    retryable: false,
  },
  {
    label: 'HTTP 408',
    thrown: httpError(408),
    code: 'TIMEOUT',
    retryable: true,
  },
  {
    label: 'HTTP 504',
    thrown: httpError(504),
    code: 'TIMEOUT',
    retryable: true,
  },
  {
    label: 'HTTP 409',
    thrown: httpError(409),
    code: 'CONFLICT',
    retryable: false,
  },
  {
    label: 'HTTP 412',
    thrown: httpError(412),
    code: 'CONFLICT',
    retryable: false,
  },
  {
    label: 'HTTP 429 with retry-after',
    thrown: httpError(429, { headers: { 'retry-after': '3' } }),
    code: 'RATE_LIMIT',
    retryable: true,
    retryAfterMs: 3000,
  },
  {
    label: 'HTTP 429 with response.headers as Headers',
    thrown: Object.assign(new Error('too many'), {
      response: { status: 429, headers: new Headers({ 'retry-after': '1' }) },
    }),
    code: 'RATE_LIMIT',
    retryable: true,
    retryAfterMs: 1000,
  },
  {
    label: 'HTTP 418',
    thrown: httpError(418),
    code: 'API_ERROR',
    retryable: false,
  },
  {
    label: 'HTTP 500',
    thrown: httpError(500),
    code: 'API_ERROR',
    retryable: true,
  },
  {
    label: 'HTTP 503',
    thrown: httpError(503),
    code: 'API_ERROR',
    retryable: true,
  },
  {
    label: 'HTTP status with an empty message',
    thrown: Object.assign(new Error(''), { status: 502 }),
    code: 'API_ERROR',
    retryable: true,
    message: /^HTTP 502$/,
  },
  {
    label: 'zod-shaped error',
    thrown: Object.assign(new Error('[...]'), {
      name: 'ZodError',
      issues: [
        { path: ['user', 'age'], message: 'Expected number, received string' },
        { path: [], message: 'Unrecognized key: "x"' },
      ],
    }),
    code: 'INVALID_PARAM',
    retryable: false,
    message:
      /^Invalid arguments: user\.age: Expected number, received string; Unrecognized key/,
  },
  {
    label: 'JSON SyntaxError',
    thrown: ((): unknown => {
      try {
        JSON.parse('{oops');
      } catch (error: unknown) {
        return error;
      }
      return undefined;
    })(),
    code: 'INVALID_FORMAT',
    retryable: false,
    message: /JSON/,
  },
  {
    label: 'plain Error',
    thrown: new Error('disk on fire'),
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /^disk on fire$/,
  },
  {
    label: 'RangeError',
    thrown: new RangeError('too big'),
    code: 'EXECUTION_ERROR',
    retryable: false,
  },
  {
    label: 'a string',
    thrown: 'it broke',
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /^it broke$/,
  },
  {
    label: 'an empty string',
    thrown: '',
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /empty string/,
  },
  {
    label: 'undefined',
    thrown: undefined,
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /undefined was thrown/,
  },
  {
    label: 'null',
    thrown: null,
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /null was thrown/,
  },
  {
    label: 'a number',
    thrown: 42,
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /number was thrown: 42/,
  },
  {
    label: 'a bigint',
    thrown: 7n,
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /bigint was thrown: 7/,
  },
  {
    label: 'a symbol',
    thrown: Symbol('boom'),
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /Symbol\(boom\)/,
  },
  {
    label: 'toString that throws',
    thrown: throwingToString,
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /non-error object/,
  },
  {
    label: 'getters that throw',
    thrown: throwingGetters,
    code: 'EXECUTION_ERROR',
    retryable: false,
  },
  {
    label: 'a hostile proxy',
    thrown: hostileProxy,
    code: 'EXECUTION_ERROR',
    retryable: false,
  },
  {
    label: 'a circular object',
    thrown: circular,
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /non-error object was thrown \(no message\)/,
  },
  {
    label: 'an Error with an empty message',
    thrown: new TypeError(''),
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /^TypeError \(no message\)$/,
  },
  {
    label: 'a plain object',
    thrown: { reason: 'quota' },
    code: 'EXECUTION_ERROR',
    retryable: false,
    message: /\{"reason":"quota"\}/,
  },
  {
    label: 'a function',
    thrown: () => 1,
    code: 'EXECUTION_ERROR',
    retryable: false,
  },
  {
    label: 'a foreign ToolError with an invalid code',
    thrown: Object.assign(new Error('weird'), {
      [Symbol.for('@candor/errors.ToolError')]: true,
      code: 'NOPE',
    }),
    code: 'EXECUTION_ERROR',
    retryable: false,
  },
];

describe('classifyError', () => {
  it('has a table of at least 25 thrown values', () => {
    expect(table.length).toBeGreaterThanOrEqual(25);
  });

  it.each(table)('$label → $code', (row) => {
    const classified = classifyError(row.thrown, { now: 0 });
    expect(classified.code).toBe(row.code);
    expect(classified.retryable).toBe(row.retryable);
    expect(classified.cause).toBe(row.thrown);
    expect(typeof classified.message).toBe('string');
    expect(classified.message.length).toBeGreaterThan(0);
    expect(classified.message).not.toMatch(/\n\s+at /);
    if (row.message) expect(classified.message).toMatch(row.message);
    expect(classified.retryAfterMs).toBe(row.retryAfterMs);
    expect(classified.cancelled).toBe(row.cancelled);
  });

  it('never includes a stack trace, even when the message embeds one', () => {
    const error = new Error(`outer failure\n${new Error('inner').stack ?? ''}`);
    const { message } = classifyError(error);
    expect(message).toMatch(/^outer failure/);
    expect(message).not.toMatch(/\bat\s+\S+\s+\(/);
    expect(message).not.toContain('classify-error.test.ts');
  });

  it('never includes a stack trace from a thrown plain object that carries one', () => {
    // A plain object has no message, so its JSON is shown: a `stack` field (or an error's stack
    // copied into any string field) would reach the model with its newlines escaped as `\n`,
    // out of reach of the line filter.
    const stack = new Error('inner').stack ?? '';
    for (const thrown of [
      { stack, status: 'failed' },
      { detail: stack },
      { nested: { reason: stack } },
    ]) {
      const { message } = classifyError(thrown);
      expect(message).toMatch(/^A non-error object was thrown/);
      expect(message).not.toMatch(/\bat\s+\S+\s+\(/);
      expect(message).not.toContain('classify-error.test.ts');
    }
    expect(classifyError({ detail: stack }).message).toContain('inner');
  });

  it('bounds very long messages', () => {
    const { message } = classifyError(new Error('x'.repeat(50_000)));
    expect(message.length).toBeLessThan(2100);
    expect(message).toMatch(/more characters\)$/);
  });

  it('keeps zod issue paths in details', () => {
    const classified = classifyError(
      Object.assign(new Error('x'), {
        name: 'ZodError',
        issues: [{ path: ['a', 0], message: 'bad' }],
      }),
    );
    expect(classified.details).toEqual({
      issues: [{ path: 'a.0', message: 'bad' }],
    });
  });

  it('records the HTTP status and the system code in details', () => {
    expect(classifyError(httpError(404)).details).toEqual({ status: 404 });
    expect(classifyError(systemError('ENOENT')).details).toEqual({
      systemCode: 'ENOENT',
    });
  });

  it('classifies a real fs error', async () => {
    const { readFile } = await import('node:fs/promises');
    const thrown = await readFile('/definitely/not/here').catch(
      (error: unknown) => error,
    );
    expect(classifyError(thrown).code).toBe('NOT_FOUND');
  });

  it('classifies a real refused connection from fetch', async () => {
    const { createServer } = await import('node:net');
    const server = createServer();
    await new Promise<void>((resolve) =>
      server.listen(0, '127.0.0.1', resolve),
    );
    const address = server.address();
    const port =
      typeof address === 'object' && address !== null ? address.port : 0;
    await new Promise<void>((resolve) =>
      server.close(() => {
        resolve();
      }),
    );
    const thrown = await fetch(`http://127.0.0.1:${port}/`).catch(
      (error: unknown) => error,
    );
    expect(classifyError(thrown).code).toBe('NETWORK_ERROR');
  });

  it('classifies a real AbortSignal.timeout as TIMEOUT and a real abort as cancelled', async () => {
    const timedOut = AbortSignal.abort(
      new DOMException('timed out', 'TimeoutError'),
    );
    expect(classifyError(timedOut.reason).code).toBe('TIMEOUT');
    const controller = new AbortController();
    controller.abort();
    const reason: unknown = controller.signal.reason;
    expect(classifyError(reason)).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
    });
  });
});
