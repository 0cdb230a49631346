import { isToolError } from '@candor/errors';
import { describe, expect, it } from 'vitest';
import { evaluateExpression } from './evaluate-expression.ts';

function codeOfThrown(expression: string): string {
  try {
    evaluateExpression(expression);
  } catch (error: unknown) {
    if (isToolError(error)) return error.code;
    throw error;
  }
  return 'no error';
}

describe('evaluateExpression', () => {
  it.each([
    ['2 + 3 * 4', 14],
    ['(2 + 3) * 4', 20],
    ['10 - 4 - 3', 3],
    ['100 / 10 / 5', 2],
    ['7 % 4', 3],
    ['2 ** 10', 1024],
    ['2 ** 3 ** 2', 512],
    ['-2 ** 2', -4],
    ['2 ** -1', 0.5],
    ['-(3 - 5)', 2],
    ['--3', 3],
    ['+4', 4],
    ['1.5 * .5', 0.75],
    ['1e3 + 2E-1', 1000.2],
    ['  42  ', 42],
    ['0 * -1', 0],
    ['((((1))))', 1],
  ])('%s = %d', (expression, expected) => {
    expect(evaluateExpression(expression)).toBe(expected);
  });

  it('never returns -0', () => {
    expect(Object.is(evaluateExpression('0 * -1'), 0)).toBe(true);
  });

  it.each([
    ['', 'INVALID_PARAM'],
    ['   ', 'INVALID_PARAM'],
    ['1+'.repeat(600) + '1', 'INVALID_PARAM'],
    ['2 + abc', 'INVALID_FORMAT'],
    ['Math.PI', 'INVALID_FORMAT'],
    ['constructor', 'INVALID_FORMAT'],
    ['2 +', 'INVALID_FORMAT'],
    ['(1 + 2', 'INVALID_FORMAT'],
    ['1 + 2)', 'INVALID_FORMAT'],
    ['1 2', 'INVALID_FORMAT'],
    ['2 ^ 3', 'INVALID_FORMAT'],
    ['1,5', 'INVALID_FORMAT'],
    ['*3', 'INVALID_FORMAT'],
    ['2 ** * 3', 'INVALID_FORMAT'],
    ['('.repeat(200) + '1' + ')'.repeat(200), 'INVALID_FORMAT'],
    ['1 / 0', 'EXECUTION_ERROR'],
    ['1 % 0', 'EXECUTION_ERROR'],
    ['0 ** -1', 'EXECUTION_ERROR'],
    ['10 ** 400', 'EXECUTION_ERROR'],
    ['1e400', 'EXECUTION_ERROR'],
    ['(-8) ** 0.5', 'EXECUTION_ERROR'],
  ])('%s → %s', (expression, expected) => {
    expect(codeOfThrown(expression)).toBe(expected);
  });

  it('names the problem and where it is', () => {
    expect(() => evaluateExpression('2 + abc')).toThrow(
      'Unknown name "abc" at position 5',
    );
    expect(() => evaluateExpression('(1 + 2')).toThrow(
      'Missing ")" for the "(" at position 1',
    );
    expect(() => evaluateExpression('4 / (2 - 2)')).toThrow('Division by zero');
  });
});
