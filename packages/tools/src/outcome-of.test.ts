import { describe, expect, it } from 'vitest';
import {
  isDenied,
  isObservedOutcome,
  isOutcome,
  ObservedOutcome,
  outcomeOf,
  ToolOutcome,
} from './outcome-of.ts';
import { ToolResponse } from './tool-response.ts';

describe('outcomeOf', () => {
  it.each([
    ['success', ToolResponse.success('ok'), 'success'],
    [
      'partial',
      ToolResponse.partial('half', { reason: 'truncated' }),
      'partial',
    ],
    ['error', ToolResponse.error('TIMEOUT', 'slow'), 'error'],
    ['a denial', ToolResponse.denied('user said no'), 'denied'],
    [
      'ACCESS_DENIED by policy, without the marker',
      ToolResponse.error('ACCESS_DENIED', 'outside root'),
      'error',
    ],
    [
      'a cancelled call',
      ToolResponse.error('EXECUTION_ERROR', 'cancelled', { cancelled: true }),
      'error',
    ],
    [
      'a parsed denial from the wire',
      ToolResponse.fromJSON(JSON.stringify(ToolResponse.denied('no'))),
      'denied',
    ],
  ])('%s → %s', (_label, response, outcome) => {
    expect(outcomeOf(response)).toBe(outcome);
    expect(isDenied(response)).toBe(outcome === 'denied');
  });
});

describe('ObservedOutcome', () => {
  it('is the tool outcome words plus unknown, and nothing else', () => {
    expect(Object.values(ObservedOutcome).sort()).toEqual([
      'denied',
      'error',
      'partial',
      'success',
      'unknown',
    ]);
    for (const word of Object.values(ToolOutcome))
      expect(isObservedOutcome(word)).toBe(true);
  });

  it.each([
    ['the old trace word for success', 'ok'],
    ['the old trace word for unknown', ''],
    ['a different case', 'Success'],
    ['a non-string', 1],
    ['undefined', undefined],
    ['an inherited property name', 'toString'],
  ])('rejects %s', (_label, value) => {
    expect(isObservedOutcome(value)).toBe(false);
  });
});

describe('isOutcome', () => {
  it.each([
    ['success', ToolResponse.success('ok')],
    ['partial', ToolResponse.partial('half', { reason: 'truncated' })],
    ['error', ToolResponse.error('TIMEOUT', 'slow')],
    ['denied', ToolResponse.denied('user said no')],
  ] as const)('agrees with outcomeOf for %s', (word, response) => {
    for (const outcome of Object.values(ToolOutcome)) {
      expect(isOutcome(response, outcome)).toBe(outcome === word);
    }
  });

  it('says a denial is not an error', () => {
    expect(isOutcome(ToolResponse.denied('no'), 'error')).toBe(false);
  });
});
