import { describe, expect, it } from 'vitest';
import { type FleetCommandsRow } from './fleet-commands.ts';
import { fleetGoals, fleetSection, perThousandCalls } from './fleet-report.ts';
import { judgeGoal } from './goal.ts';
import { parseMonitorLine } from './redis-monitor.ts';

const row: FleetCommandsRow = {
  idlePerSecond: 1.04,
  idleCommands: 10,
  idleSeconds: 10,
  rates: [
    { rate: 10, calls: 100, commands: 110, seconds: 10 },
    { rate: 100, calls: 500, commands: 330, seconds: 5 },
    { rate: 1_000, calls: 3_000, commands: 270, seconds: 3 },
  ],
  redisVersion: '7.0.15',
};

const judged = (r: FleetCommandsRow) =>
  fleetGoals(r).map(([goal, value]) => judgeGoal(goal, value));

describe('fleetGoals', () => {
  it('judges the idle rate to one decimal and the fall of commands per 1,000 calls at its weakest step', () => {
    const [idle, falling] = judged(row);
    expect(idle).toMatchObject({ value: 1, limit: 1, met: true });
    // 1,100 → 660 → 90 per 1,000 calls: the weaker step is 660 / 1,100.
    expect(falling?.value).toBeCloseTo(0.6);
    expect(falling?.met).toBe(true);
  });

  it('misses when an idle process sends two commands a second, or a faster rate costs as much per call', () => {
    const [idle, falling] = judged({
      ...row,
      idlePerSecond: 2,
      rates: [
        { rate: 10, calls: 100, commands: 120, seconds: 10 },
        { rate: 100, calls: 500, commands: 600, seconds: 5 },
        { rate: 1_000, calls: 3_000, commands: 270, seconds: 3 },
      ],
    });
    expect(idle?.met).toBe(false);
    expect(falling).toMatchObject({ value: 1, met: false });
  });

  it('has no goals, and says why, without redis-server', () => {
    expect(fleetGoals(undefined)).toEqual([]);
    expect(fleetSection(undefined).join('\n')).toMatch(
      /Skipped: `redis-server` is not installed/,
    );
  });
});

describe('fleetSection', () => {
  it('shows commands per 1,000 calls and a second for each rate, and the idle rate', () => {
    const text = fleetSection(row).join('\n');
    expect(text).toContain('| idle | 0 | 10.0 s | 10 | – | 1.04 |');
    expect(text).toContain(
      '| 1,000 calls/s | 3,000 | 3.0 s | 270 | 90 | 90.0 |',
    );
    expect(text).toContain('redis-server` 7.0.15');
    expect(perThousandCalls({ calls: 500, commands: 330 })).toBe(660);
  });
});

describe('parseMonitorLine', () => {
  it('reads the sender, the command and its first word; a script’s own commands come from lua', () => {
    expect(
      parseMonitorLine(
        '1796169822.303420 [0 127.0.0.1:43000] "evalsha" "180fe6" "2" "a \\"b\\""',
      ),
    ).toEqual({
      at: 1796169822303.42,
      from: '127.0.0.1:43000',
      command: 'EVALSHA',
      first: '180fe6',
    });
    expect(
      parseMonitorLine('1796169822.303500 [0 lua] "PUBLISH" "x:beat:p" "m"'),
    ).toMatchObject({
      from: 'lua',
      command: 'PUBLISH',
    });
    expect(() => parseMonitorLine('OK')).toThrow(/not a MONITOR line/);
  });
});
