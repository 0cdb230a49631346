// Attacks on the fleet kill switch: tool names and prefixes that are glob patterns, control
// characters or the layout's own separators, foreign keys under the prefix, and what `status`
// prints of names someone else chose (an MCP server names its own tools).
import { createToolBreaker, type ToolBreaker } from '@candor/breaker';
import { ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { formatFleetStatus, terminalJson } from './cli/format-fleet-status.ts';
import {
  rawRedisClient,
  redisInstalled,
} from './__fixtures__/fleet-helpers.ts';
import { useRedisFleet } from './__fixtures__/redis-fleet.ts';
import { FleetKeys } from './fleet-keys.ts';

const hostileNames = [
  'a*',
  '*',
  'b?',
  'c[x]',
  '[',
  'd\\',
  'e\nf',
  '\u001b[2J\u001b]0;pwned\u0007evil',
  'window:x',
  'lease:y',
  'states',
  'x'.repeat(512),
];

/** Resolves when `breaker`'s state becomes `to` (at once if it is already). */
async function stateBecomes(breaker: ToolBreaker, to: string): Promise<void> {
  if (breaker.state === to) return;
  await new Promise<void>((resolve) => {
    const off = breaker.onStateChange((change) => {
      if (change.to !== to) return;
      off();
      resolve();
    });
  });
}

// C0, DEL, C1, and the Unicode controls that reorder or hide text (bidi overrides and isolates,
// zero-width marks, line and paragraph separators): none may reach the operator's terminal.
const unsafe =
  // eslint-disable-next-line no-control-regex -- control characters are what this looks for
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/;

describe.skipIf(!redisInstalled)('fleet holds on hostile tool names', () => {
  const redis = useRedisFleet('hostile');

  it('each hostile name is held and listed as itself, and holds no other tool', async () => {
    const prefix = 'hostile-names:';
    const store = await redis.store({ keyPrefix: prefix });
    const bystander = createToolBreaker('real_tool', {
      store,
      telemetry: false,
    });
    const held = hostileNames.map((tool) =>
      createToolBreaker(tool, { store, telemetry: false }),
    );
    try {
      for (const tool of hostileNames) {
        expect(await store.fleet.forceOpen(tool)).toMatchObject({
          state: 'open',
          forced: 'open',
        });
      }
      await Promise.all(held.map((breaker) => stateBecomes(breaker, 'open')));
      // A glob name held nothing else: the bystander still runs.
      let runs = 0;
      const response = await bystander.execute(() => {
        runs += 1;
        return Promise.resolve(ToolResponse.success('ran'));
      });
      expect(response.status).toBe('success');
      expect(runs).toBe(1);
      for (const breaker of held) {
        expect(
          (
            await breaker.execute(() =>
              Promise.resolve(ToolResponse.success('x')),
            )
          ).status,
        ).toBe('error');
      }
      const status = await store.fleet.status();
      const listed = status.tools.map((tool) => tool.tool);
      // Every hostile name once, as itself; the bystander only if it has keys of its own.
      for (const tool of hostileNames) {
        expect(listed.filter((name) => name === tool)).toHaveLength(1);
        expect(status.tools.find((t) => t.tool === tool)?.forced).toBe('open');
      }
      expect(listed.filter((name) => !hostileNames.includes(name))).toEqual(
        listed.includes('real_tool') ? ['real_tool'] : [],
      );
      // Releasing a glob name releases that one only.
      expect(await store.fleet.release('*')).toBe(true);
      const after = await store.fleet.status();
      expect(after.tools.find((t) => t.tool === 'a*')?.forced).toBe('open');
      expect(after.tools.find((t) => t.tool === '*')?.forced).toBeUndefined();
      const text = formatFleetStatus(after, { url: redis.url, prefix });
      expect(unsafe.test(text.replace(/\n/g, ''))).toBe(false);
    } finally {
      for (const breaker of [bystander, ...held]) breaker.shutdown();
    }
  });

  it('a glob prefix lists only its own keys, and foreign keys under it are shown as not a window', async () => {
    const client = await rawRedisClient(redis.url);
    try {
      const mine = new FleetKeys('p*:');
      const theirs = new FleetKeys('pX:');
      await client.hSet(theirs.window('their_tool'), { c1: '3', f1: '1' });
      await client.set(theirs.lease('their_lease'), 'w:1:a#1', {
        expiration: { type: 'PX', value: 60_000 },
      });
      await client.set(mine.window('not_a_hash'), 'foreign');
      await client.hSet(mine.window('ours'), { c1: '2', f1: '1', junk: 'x' });
      const store = await redis.store({ keyPrefix: 'p*:' });
      const status = await store.fleet.status();
      expect(status.tools.map((tool) => tool.tool)).toEqual([
        'not_a_hash',
        'ours',
      ]);
      expect(status.tools[0]?.window?.readable).toBe(false);
      expect(status.tools[1]?.window).toMatchObject({
        readable: true,
        calls: 2,
        failures: 1,
      });
    } finally {
      client.destroy();
    }
  });
});

describe.skipIf(!redisInstalled)('a prefix holding a NUL', () => {
  const redis = useRedisFleet('nul');

  it('status lists its tools by their own names', async () => {
    const prefix = 'nul\u0000fleet:';
    const client = await rawRedisClient(redis.url);
    try {
      const keys = new FleetKeys(prefix);
      await client.hSet(keys.window('windowed'), { c1: '2', f1: '1' });
      const store = await redis.store({ keyPrefix: prefix });
      await store.fleet.forceOpen('held');
      const status = await store.fleet.status();
      expect(status.tools.map((tool) => tool.tool)).toEqual([
        'held',
        'windowed',
      ]);
      expect(status.tools[1]?.window).toMatchObject({ calls: 2, failures: 1 });
    } finally {
      client.destroy();
    }
  });
});

describe('what status prints of names someone else chose', () => {
  const now = Date.parse('2026-12-02T00:40:00.000Z');
  const names = [
    '\u001b[31mred',
    '\u009b2J',
    // Trojan Source: shows as "web_fetch" read right to left.
    '\u202ehctef_bew',
    'a\u2066b\u2069c',
    'zero\u200bwidth',
    'line\u2028break',
    'bom\ufeff',
  ];

  it('no control, bidi or invisible character reaches the terminal, in the name, the holder or the author', () => {
    const text = formatFleetStatus(
      {
        now,
        generation: 'g',
        tools: names.map((tool) => ({
          tool,
          state: 'half_open' as const,
          record: {
            state: 'half_open' as const,
            epoch: now - 1_000,
            openedAt: now - 2_000,
            leaseAt: now - 1_000,
            leaseMs: 1_000,
            by: tool,
          },
          trial: { kind: 'lease' as const, holder: tool, expiresInMs: 500 },
          lastTransitionAt: now - 1_000,
        })),
      },
      { url: 'redis://127.0.0.1:6379', prefix: 'p\u202e:' },
    );
    for (const line of text.split('\n')) {
      expect(unsafe.test(line)).toBe(false);
    }
    expect(text.split('\n')).toHaveLength(names.length + 3);
  });

  it('--json escapes them instead, and parses back to the same status', () => {
    const status = {
      now,
      generation: 'g',
      tools: names.map((tool) => ({ tool })),
    };
    const json = terminalJson(status);
    expect(unsafe.test(json)).toBe(false);
    expect(JSON.parse(json)).toEqual(status);
  });
});
