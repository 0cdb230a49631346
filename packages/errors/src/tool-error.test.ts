import { throwingProxy } from '@candor/hostile-fixtures';
import { describe, expect, it } from 'vitest';
import { isToolError, ToolError } from './tool-error.ts';

describe('ToolError', () => {
  it('carries code, message, retry hints, details and cause', () => {
    const cause = new Error('socket closed');
    const error = new ToolError({
      code: 'RATE_LIMIT',
      message: 'slow down',
      retryAfterMs: 1500,
      details: { bucket: 'search' },
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('ToolError');
    expect(error.code).toBe('RATE_LIMIT');
    expect(error.message).toBe('slow down');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(1500);
    expect(error.details).toEqual({ bucket: 'search' });
    expect(error.cause).toBe(cause);
  });

  it('fills retryable from the code metadata unless given', () => {
    expect(new ToolError({ code: 'NOT_FOUND', message: 'x' }).retryable).toBe(
      false,
    );
    expect(new ToolError({ code: 'TIMEOUT', message: 'x' }).retryable).toBe(
      true,
    );
    expect(
      new ToolError({ code: 'TIMEOUT', message: 'x', retryable: false })
        .retryable,
    ).toBe(false);
  });

  it('rejects an unknown code naming the valid ones', () => {
    expect(
      () => new ToolError({ code: 'OOPS' as 'TIMEOUT', message: 'x' }),
    ).toThrow(/unknown code "OOPS".*NOT_FOUND, ACCESS_DENIED/);
  });

  it('refuses a positional call and shows the options-object shape', () => {
    const positional = ToolError as unknown as new (
      code: string,
      message: string,
    ) => ToolError;
    expect(() => new positional('NOT_FOUND', 'no such file')).toThrow(
      /takes one options object, new ToolError\(\{ code: 'NOT_FOUND'.*got string/,
    );
  });

  it('is recognised across duplicate package copies through its marker', () => {
    // A copy from another install of @candor/errors has a different class but the same marker.
    const foreign = Object.assign(new Error('from a copy'), {
      [Symbol.for('@candor/errors.ToolError')]: true,
      code: 'CONFLICT',
    });
    expect(foreign instanceof ToolError).toBe(false);
    expect(isToolError(foreign)).toBe(true);
    expect(
      ToolError.is(new ToolError({ code: 'CONFLICT', message: 'x' })),
    ).toBe(true);
    expect(isToolError(new Error('plain'))).toBe(false);
    expect(isToolError(null)).toBe(false);
    expect(isToolError('ToolError')).toBe(false);
  });

  it('survives a hostile proxy', () => {
    const hostile = throwingProxy('trap').logger;
    expect(isToolError(hostile)).toBe(false);
  });
});
