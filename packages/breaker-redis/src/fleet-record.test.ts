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
