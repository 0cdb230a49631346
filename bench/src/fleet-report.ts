import { type FleetCommandsRow } from './fleet-commands.ts';
import { markdownTable } from './format-table.ts';
import { type Goal } from './goal.ts';

/**
 * The command-rate goals of the Redis breaker store: an idle process costs at most one command a
 * second, and commands per 1,000 calls fall as the call rate rises.
 */
export function fleetGoals(
  row: FleetCommandsRow | undefined,
): [Goal, number][] {
  if (row === undefined) return [];
  const perThousand = row.rates.map((rate) => perThousandCalls(rate));
  // Each rate's figure over the next slower one's: below 1 at every step means it keeps falling.
  const steps = perThousand
    .slice(1)
    .map((value, i) => value / (perThousand[i] ?? value));
  return [
    [
      {
        label: 'Redis store: commands a second of an idle process (MONITOR)',
        direction: 'at-most',
        limit: 1,
        unit: ' commands/s',
      },
      // To one decimal: the heartbeat's timer and the event loop's delays move single gaps by
      // tens of ms, which over a few seconds' window shows as a few hundredths.
      Math.round(row.idlePerSecond * 10) / 10,
    ],
    [
      {
        label: `Redis store: commands per 1,000 calls, each call rate ÷ the next slower (${row.rates.map((rate) => String(rate.rate)).join(', ')} calls/s), largest`,
        direction: 'at-most',
        limit: 0.9,
        unit: '×',
      },
      Math.max(...steps),
    ],
  ];
}

/** Commands per 1,000 calls of one window. */
export function perThousandCalls(rate: {
  readonly calls: number;
  readonly commands: number;
}): number {
  return (rate.commands * 1000) / rate.calls;
}

/** The section of the report: how it was counted, and the table. */
export function fleetSection(row: FleetCommandsRow | undefined): string[] {
  const heading =
    '### 5. Redis commands of one process with the Redis breaker store';
  if (row === undefined) {
    return [
      heading,
      '',
      'Skipped: `redis-server` is not installed (Debian: `apt-get install redis-server`).',
    ];
  }
  return [
    heading,
    '',
    `One process with \`createRedisBreakerStore\` at its defaults against a local \`redis-server\` ${row.redisVersion} that the bench starts; \`registry.call\` on the trivial tool, paced by a timer at each call rate. A second connection runs \`MONITOR\`: a command is a line it prints from the store's connections (not the lines of commands a script runs inside Redis, nor the monitor's own marks). The idle rate is the store's commands over the time between its first and last one in the window. \`docs/fleet.md\` turns these into a sizing table.`,
    '',
    markdownTable(
      [
        'process',
        'calls',
        'window',
        'commands (MONITOR)',
        'commands per 1,000 calls',
        'commands a second',
      ],
      [
        [
          'idle',
          '0',
          `${row.idleSeconds.toFixed(1)} s`,
          String(row.idleCommands),
          '–',
          row.idlePerSecond.toFixed(2),
        ],
        ...row.rates.map((rate) => [
          `${rate.rate.toLocaleString('en')} calls/s`,
          rate.calls.toLocaleString('en'),
          `${rate.seconds.toFixed(1)} s`,
          rate.commands.toLocaleString('en'),
          perThousandCalls(rate).toFixed(0),
          (rate.commands / rate.seconds).toFixed(1),
        ]),
      ],
    ),
  ];
}
