import { type ToolErrorCode } from '@candor/errors';
import { describe, expect, it } from 'vitest';
import { ErrorBudget } from './error-budget.ts';

const error = (
  args: string,
  code: ToolErrorCode = 'TIMEOUT',
  toolName = 't',
) => ({
  outcome: 'error' as const,
  toolName,
  callId: 'c',
  arguments: args,
  code,
  message: 'm',
});

describe('ErrorBudget', () => {
  it('stops after 3 consecutive errors by default', () => {
    const budget = new ErrorBudget();
    expect(budget.record(error('{"a":1}'))).toBeUndefined();
    expect(budget.record(error('{"a":2}'))).toBeUndefined();
    expect(budget.record(error('{"a":3}'))).toBe('max_consecutive_errors');
  });

  it('stops when the same tool, arguments and code fail twice, whatever the key order', () => {
    const budget = new ErrorBudget();
    expect(budget.record(error('{"a":1,"b":2}'))).toBeUndefined();
    expect(budget.record(error('{"b":2, "a":1}'))).toBe('repeated_failure');
  });

  it('does not treat a different code on the same call as a repeat', () => {
    const budget = new ErrorBudget({ maxConsecutiveErrors: 10 });
    budget.record(error('{}', 'TIMEOUT'));
    expect(budget.record(error('{}', 'API_ERROR'))).toBeUndefined();
  });

  it('stops after 5 errors in total, with successes between them', () => {
    const budget = new ErrorBudget();
    for (let index = 0; index < 4; index++) {
      expect(budget.record(error(`{"i":${index}}`))).toBeUndefined();
      budget.record({
        outcome: 'success',
        toolName: 't',
        callId: 'c',
        arguments: '{}',
      });
    }
    expect(budget.record(error('{"i":9}'))).toBe('max_errors');
    expect(budget.lastErrors(2).map((entry) => entry.code)).toEqual([
      'TIMEOUT',
      'TIMEOUT',
    ]);
  });

  it('never counts denied or partial, and partial resets the consecutive run', () => {
    const budget = new ErrorBudget();
    for (let index = 0; index < 10; index++) {
      budget.record({
        outcome: 'denied',
        toolName: 't',
        callId: 'c',
        arguments: '{}',
        code: 'ACCESS_DENIED',
      });
    }
    budget.record(error('{"a":1}'));
    budget.record(error('{"a":2}'));
    budget.record({
      outcome: 'partial',
      toolName: 't',
      callId: 'c',
      arguments: '{}',
    });
    expect(budget.record(error('{"a":3}'))).toBeUndefined();
    expect(budget.exhausted).toBeUndefined();
  });

  it('rejects nonsense limits', () => {
    expect(() => new ErrorBudget({ maxErrors: 0 })).toThrow(
      /maxErrors must be an integer of at least 1/,
    );
    expect(() => new ErrorBudget({ maxConsecutiveErrors: 1.5 })).toThrow(
      /maxConsecutiveErrors/,
    );
  });
});
