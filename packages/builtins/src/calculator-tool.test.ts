import { describe, expect, it } from 'vitest';
import { callTool, codeOf } from './__fixtures__/call-tool.ts';
import { calculatorTool } from './calculator-tool.ts';

describe('calculator outcomes', () => {
  it.each([
    ['2 + 3 * 4', 'success'],
    ['12345678901', 'partial'],
    ['-2 * 10 ** 11', 'partial'],
    ['1e10', 'success'],
    ['', 'INVALID_PARAM'],
    ['2 + abc', 'INVALID_FORMAT'],
    ['1 / 0', 'EXECUTION_ERROR'],
  ])('%s → %s', async (expression, expected) => {
    const response = await callTool(calculatorTool(), { expression });
    expect(codeOf(response)).toBe(expected);
  });

  it('answers 2 + 3 * 4 with 14', async () => {
    const response = await callTool(calculatorTool(), {
      expression: '2 + 3 * 4',
    });
    expect(response.text).toBe('14');
    expect(response.data).toEqual({
      expression: '2 + 3 * 4',
      result: 14,
      truncated: false,
    });
  });

  it('shows a result above 1e10 in scientific notation, with a reason', async () => {
    const response = await callTool(calculatorTool(), {
      expression: '123456789 * 1000',
    });
    expect(response.status).toBe('partial');
    if (response.status !== 'partial') return;
    expect(response.reason).toBe('rounded');
    expect(response.text).toBe('1.234568e+11');
    expect(response.data).toMatchObject({
      result: 123456789000,
      display: '1.234568e+11',
      truncated: true,
    });
  });

  it('never answers Infinity', async () => {
    const response = await callTool(calculatorTool(), { expression: '1 / 0' });
    expect(response.text).not.toContain('Infinity');
    expect(response.text).toBe('Division by zero');
  });

  it('refuses a non-string expression as INVALID_PARAM', async () => {
    const response = await callTool(calculatorTool(), { expression: 42 });
    expect(codeOf(response)).toBe('INVALID_PARAM');
  });
});
