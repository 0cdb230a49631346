import { describe, expect, it } from 'vitest';
import { parseFleetRecord } from './fleet-record.ts';

describe('parseFleetRecord and holds', () => {
  it('keeps a hold that matches its state, with its time', () => {
    expect(
      parseFleetRecord(
        '{"state":"open","forced":"open","forcedAt":5,"openedAt":5,"epoch":7,"by":"ops"}',
      ),
    ).toEqual({
      state: 'open',
      forced: 'open',
      forcedAt: 5,
      openedAt: 5,
      epoch: 7,
      by: 'ops',
    });
    expect(
      parseFleetRecord({
        state: 'closed',
        forced: 'closed',
        forcedAt: 1,
        epoch: 2,
      }),
    ).toEqual({ state: 'closed', forced: 'closed', forcedAt: 1, epoch: 2 });
  });

  it.each([
    [
      'a hold against its state',
      { state: 'open', forced: 'closed', forcedAt: 1, openedAt: 1, epoch: 1 },
    ],
    [
      'a half-open hold',
      {
        state: 'half_open',
        forced: 'half_open',
        forcedAt: 1,
        openedAt: 1,
        leaseAt: 1,
        leaseMs: 1,
        epoch: 1,
      },
    ],
    [
      'a hold without its time',
      { state: 'closed', forced: 'closed', epoch: 1 },
    ],
    [
      'a hold of another kind',
      { state: 'closed', forced: true, forcedAt: 1, epoch: 1 },
    ],
    ['a null hold', { state: 'closed', forced: null, forcedAt: 1, epoch: 1 }],
  ])('is not a record: %s', (_, value) => {
    expect(parseFleetRecord(value)).toBeUndefined();
  });
});

describe('parseFleetRecord and several half-open trials', () => {
  const halfOpen = {
    state: 'half_open',
    epoch: 9,
    openedAt: 1,
    leaseAt: 8,
    leaseMs: 100,
    permitted: 3,
    trials: { 'a#1': 108, 'b#2': 20 },
    trialsEnded: 1,
    trialsFailed: 1,
    trialsSlow: 0,
  };

  it('keeps the slots and the results so far', () => {
    expect(parseFleetRecord(JSON.stringify(halfOpen))).toEqual(halfOpen);
    // While open: the claims, no results.
    const open = {
      state: 'open',
      epoch: 3,
      openedAt: 1,
      permitted: 2,
      trials: { 'a#1': 40 },
    };
    expect(parseFleetRecord(open)).toEqual(open);
  });

  it.each([
    ['more slots than permitted', { trials: { a: 1, b: 2, c: 3, d: 4 } }],
    ['a slot that is not a time', { trials: { a: 'soon' } }],
    ['slots that are a list', { trials: [1, 2] }],
    ['a permitted count under 2', { permitted: 1 }],
    ['no results while half-open', { trialsEnded: undefined }],
  ])('drops the slot fields, not the record, for %s', (_, change) => {
    const parsed = parseFleetRecord({ ...halfOpen, ...change });
    expect(parsed).toMatchObject({ state: 'half_open', epoch: 9 });
    expect(parsed).not.toHaveProperty('permitted');
    expect(parsed).not.toHaveProperty('trials');
    expect(parsed).not.toHaveProperty('trialsEnded');
  });
});
