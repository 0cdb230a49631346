import { describe, expect, it } from 'vitest';
import { formatFleetStatus } from './format-fleet-status.ts';

const where = { url: 'redis://127.0.0.1:6379', prefix: 'p:' };

describe('formatFleetStatus', () => {
  it('one padded row per tool: state, hold, window, trial, last transition', () => {
    const now = Date.parse('2026-12-02T00:40:00.000Z');
    const text = formatFleetStatus(
      {
        now,
        generation: 'g',
        tools: [
          {
            tool: 'search',
            state: 'half_open',
            record: {
              state: 'half_open',
              epoch: now - 2_000,
              openedAt: now - 60_000,
              leaseAt: now - 2_000,
              leaseMs: 31_000,
              by: 'w:1:a',
            },
            trial: { kind: 'lease', holder: 'w:1:a', expiresInMs: 29_000 },
            lastTransitionAt: now - 2_000,
          },
          {
            tool: 'web',
            state: 'closed',
            forced: 'closed',
            window: { readable: true, calls: 9, failures: 9, expiresInMs: 1 },
            lastTransitionAt: now - 7_200_000,
          },
          {
            tool: 'odd',
            state: 'unreadable',
            window: { readable: false, calls: 0, failures: 0, expiresInMs: -1 },
          },
        ],
      },
      where,
    );
    expect(text.split('\n')).toEqual([
      'fleet "p:" at redis://127.0.0.1:6379: 3 tools, server time 2026-12-02T00:40:00.000Z',
      'TOOL    STATE       HOLD           WINDOW             TRIAL                         LAST TRANSITION',
      'search  half_open   -              -                  lease by w:1:a (29.0 s left)  2.0 s ago by w:1:a',
      'web     closed      forced closed  9 calls, 9 failed  -                             2 h ago',
      'odd     unreadable  -              not a window       -                             never',
      '',
    ]);
  });

  it('shows the slots of several half-open trials from the record', () => {
    const now = 1_000_000;
    const text = formatFleetStatus(
      {
        now,
        generation: 'g',
        tools: [
          {
            tool: 'slots',
            state: 'half_open',
            record: {
              state: 'half_open',
              epoch: now - 1,
              openedAt: now - 60_000,
              leaseAt: now - 1,
              leaseMs: 31_000,
              permitted: 3,
              // One live slot, one run out: only the live one is taken.
              trials: { 'a#1': now + 30_000, 'b#2': now - 5 },
              trialsEnded: 1,
              trialsFailed: 1,
              trialsSlow: 0,
            },
          },
        ],
      },
      where,
    );
    expect(text).toContain('1 of 3 slots taken, 1 ended, 1 failed');
  });

  it('prints control characters from Redis as ?', () => {
    const text = formatFleetStatus(
      {
        now: 0,
        generation: undefined,
        tools: [{ tool: 'a\u001b[2Jb\n', state: 'closed' }],
      },
      where,
    );
    expect(text).toContain('a?[2Jb?  closed');
    expect(text).not.toContain('\u001b');
  });

  it('says so when there is no tool', () => {
    expect(
      formatFleetStatus({ now: 0, generation: undefined, tools: [] }, where),
    ).toMatch(/: 0 tools, .*\nno tool has a record/);
  });
});
