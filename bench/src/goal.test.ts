import { describe, expect, it } from 'vitest';
import { describeLimit, type Goal, judgeGoal } from './goal.ts';

const atMost: Goal = {
  label: 'registry.call ÷ opossum',
  direction: 'at-most',
  limit: 1.5,
  unit: '×',
};
const atLeast: Goal = {
  label: 'LangChain ÷ registry.call',
  direction: 'at-least',
  limit: 15,
  unit: '×',
};

describe('judgeGoal', () => {
  it('meets an at-most goal up to and including the limit', () => {
    expect(judgeGoal(atMost, 1.5).met).toBe(true);
    expect(judgeGoal(atMost, 1.51).met).toBe(false);
  });

  it('meets an at-least goal from the limit up', () => {
    expect(judgeGoal(atLeast, 15).met).toBe(true);
    expect(judgeGoal(atLeast, 14.9).met).toBe(false);
  });

  it('keeps the measured value with the goal', () => {
    expect(judgeGoal(atMost, 0.9)).toEqual({
      ...atMost,
      value: 0.9,
      met: true,
    });
  });

  it('refuses a value that is not a finite number', () => {
    expect(() => judgeGoal(atMost, Number.NaN)).toThrow(
      'The value for "registry.call ÷ opossum" must be a finite number, got NaN',
    );
  });
});

describe('describeLimit', () => {
  it('writes the limit with its unit', () => {
    expect(describeLimit(atMost)).toBe('≤ 1.5×');
    expect(describeLimit({ ...atLeast, limit: 5, unit: ' MB' })).toBe('≥ 5 MB');
  });
});
