import { ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { countsAsFailure } from './counts-as-failure.ts';
import { failOnProcessWarnings } from './__fixtures__/process-warnings.ts';

failOnProcessWarnings();

describe('countsAsFailure', () => {
  it.each([
    ['success', ToolResponse.success('ok'), false],
    ['partial', ToolResponse.partial('half', { reason: 'truncated' }), false],
    ['TIMEOUT', ToolResponse.error('TIMEOUT', 'slow'), true],
    ['NOT_FOUND', ToolResponse.error('NOT_FOUND', 'missing'), false],
    [
      'a cancelled TIMEOUT',
      ToolResponse.error('TIMEOUT', 'stopped', { cancelled: true }),
      false,
    ],
    ['CIRCUIT_OPEN', ToolResponse.error('CIRCUIT_OPEN', 'open'), false],
  ])('with the default codes: %s → %s', (_label, response, expected) => {
    expect(countsAsFailure(response)).toBe(expected);
  });

  it('a denial never counts, even when ACCESS_DENIED is listed', () => {
    const codes = new Set(['ACCESS_DENIED', 'CIRCUIT_OPEN'] as const);
    expect(countsAsFailure(ToolResponse.denied('no'), codes)).toBe(false);
    expect(
      countsAsFailure(ToolResponse.error('ACCESS_DENIED', 'policy'), codes),
    ).toBe(true);
    expect(
      countsAsFailure(ToolResponse.error('CIRCUIT_OPEN', 'open'), codes),
    ).toBe(false);
  });
});
