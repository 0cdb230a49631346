import { describe, expect, it } from 'vitest';
import { codeMetadata, metadataOf } from './code-metadata.ts';
import {
  allToolErrorCodes,
  isToolErrorCode,
  ToolErrorCode,
} from './tool-error-code.ts';

describe('ToolErrorCode', () => {
  it('holds exactly the 15 standard codes', () => {
    expect([...allToolErrorCodes].sort()).toEqual(
      [
        'NOT_FOUND',
        'ACCESS_DENIED',
        'PERMISSION_DENIED',
        'IS_DIRECTORY',
        'BINARY_FILE',
        'INVALID_PARAM',
        'INVALID_FORMAT',
        'EXECUTION_ERROR',
        'TIMEOUT',
        'INTERNAL_ERROR',
        'CONFLICT',
        'CIRCUIT_OPEN',
        'NETWORK_ERROR',
        'API_ERROR',
        'RATE_LIMIT',
      ].sort(),
    );
    for (const [key, value] of Object.entries(ToolErrorCode))
      expect(key).toBe(value);
  });

  it('guards codes exactly', () => {
    expect(isToolErrorCode('TIMEOUT')).toBe(true);
    expect(isToolErrorCode('timeout')).toBe(false);
    expect(isToolErrorCode('toString')).toBe(false);
    expect(isToolErrorCode(undefined)).toBe(false);
    expect(isToolErrorCode(42)).toBe(false);
  });
});

describe('codeMetadata', () => {
  const expected: Record<ToolErrorCode, [string, boolean, boolean]> = {
    // code: [category, retryable, countsForBreaker]
    NOT_FOUND: ['resource', false, false],
    ACCESS_DENIED: ['resource', false, false],
    PERMISSION_DENIED: ['resource', false, false],
    IS_DIRECTORY: ['resource', false, false],
    BINARY_FILE: ['resource', false, false],
    INVALID_PARAM: ['param', false, false],
    INVALID_FORMAT: ['param', false, false],
    EXECUTION_ERROR: ['execution', false, true],
    TIMEOUT: ['execution', true, true],
    INTERNAL_ERROR: ['execution', false, true],
    CONFLICT: ['state', false, false],
    CIRCUIT_OPEN: ['state', true, false],
    NETWORK_ERROR: ['network', true, true],
    API_ERROR: ['network', false, true],
    RATE_LIMIT: ['network', true, true],
  };

  it.each(allToolErrorCodes)(
    '%s has its category, retry and breaker defaults',
    (code) => {
      const meta = metadataOf(code);
      expect(meta.code).toBe(code);
      expect([meta.category, meta.retryable, meta.countsForBreaker]).toEqual(
        expected[code],
      );
      expect(meta.meaning.length).toBeGreaterThan(10);
      expect(meta.meaning).not.toContain('\n');
    },
  );

  it('counts only tool-health codes for a breaker', () => {
    const counted = allToolErrorCodes.filter(
      (code) => codeMetadata[code].countsForBreaker,
    );
    expect(counted.sort()).toEqual(
      [
        'TIMEOUT',
        'NETWORK_ERROR',
        'API_ERROR',
        'RATE_LIMIT',
        'INTERNAL_ERROR',
        'EXECUTION_ERROR',
      ].sort(),
    );
  });

  it('is frozen', () => {
    expect(Object.isFrozen(codeMetadata)).toBe(true);
    expect(Object.isFrozen(codeMetadata.TIMEOUT)).toBe(true);
  });
});
