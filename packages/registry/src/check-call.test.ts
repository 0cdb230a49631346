import { defineTool, ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from './tool-registry.ts';

// A tool whose every run is counted, with a refinement JSON Schema cannot say and a transform.
function countedRegistry() {
  const registry = new ToolRegistry({
    breaker: { minimumCalls: 1, failureRatePct: 1, resetTimeoutMs: 60_000 },
  });
  const runs = { count: 0 };
  registry.register(
    defineTool({
      name: 'deploy',
      description: 'Deploys a branch',
      input: z.object({
        branch: z
          .string()
          .refine((branch) => !branch.startsWith('tmp/'), 'no tmp branches'),
        when: z.iso.datetime().transform((when) => new Date(when)),
        replicas: z.coerce.number().int(),
        token: z.string().optional(),
        user: z
          .string()
          .transform((user) => ({ name: user.trim(), auth: user })),
      }),
      run: () => {
        runs.count += 1;
        return ToolResponse.success('deployed');
      },
    }),
  );
  return { registry, runs };
}

// The response without its timing, which differs from one answer to the next.
function untimed(response: ToolResponse): unknown {
  const { stats, ...rest } = response;
  return { ...rest, stats: { ...stats, timeMs: 0 } };
}

const valid = {
  branch: 'main',
  when: '2026-12-01T00:00:00.000Z',
  replicas: '3',
  token: 'sekret-1',
  user: ' ada ',
};

describe('ToolRegistry.check', () => {
  it.each([
    ['an unknown tool', 'nope', valid],
    ['arguments that are not JSON', 'deploy', '{"branch": '],
    [
      'a refinement the schema refuses',
      'deploy',
      { ...valid, branch: 'tmp/x' },
    ],
    ['a missing field', 'deploy', { branch: 'main' }],
    [
      'a refused call whose secret the error would carry',
      'deploy',
      { ...valid, token: 'sekret-2', when: 'not a date' },
    ],
  ])(
    'answers %s exactly as call() does, and never runs the tool',
    async (_, name, args) => {
      const { registry, runs } = countedRegistry();
      const ends: unknown[] = [];
      registry.on('tool:end', (end) => ends.push(end));
      const checked = await registry.check(name, args, { callId: 'c1' });
      expect(checked.ok).toBe(false);
      expect(ends).toEqual([]);
      const called = await registry.call(name, args, { callId: 'c1' });
      if (checked.ok) throw new Error('checked as valid');
      expect(untimed(checked.response)).toEqual(untimed(called));
      expect(called.status).toBe('error');
      expect(JSON.stringify(checked.response)).not.toContain('sekret-2');
      expect(runs.count).toBe(0);
      expect(ends).toHaveLength(1);
    },
  );

  it('answers the validated input and its censored copy, running nothing and touching no breaker', async () => {
    const { registry, runs } = countedRegistry();
    const events: string[] = [];
    registry.on('tool:start', () => events.push('start'));
    registry.on('tool:end', () => events.push('end'));
    const checked = await registry.check('deploy', JSON.stringify(valid));
    if (!checked.ok) throw new Error(checked.response.text);
    expect(checked.toolName).toBe('deploy');
    expect(checked.callId).toMatch(/^call_/);
    // The input as the tool would receive it: coerced and transformed.
    expect(checked.input).toEqual({
      branch: 'main',
      when: new Date('2026-12-01T00:00:00.000Z'),
      replicas: 3,
      token: 'sekret-1',
      user: { name: 'ada', auth: ' ada ' },
    });
    // The copy to show: JSON, secret keys censored, wherever the transform put them.
    expect(checked.params).toEqual({
      branch: 'main',
      when: '2026-12-01T00:00:00.000Z',
      replicas: 3,
      token: '[REDACTED]',
      user: { name: 'ada', auth: '[REDACTED]' },
    });
    expect(runs.count).toBe(0);
    expect(events).toEqual([]);
    expect(registry.health()).toEqual([]);
  });

  it('scrubs an argument secret the schema moved under a key that is not secret-looking', async () => {
    const registry = new ToolRegistry({ breaker: false });
    registry.register(
      defineTool({
        name: 'login',
        description: 'Logs in',
        input: z
          .object({ password: z.string() })
          .transform(({ password }) => ({ hint: `was ${password}` })),
        run: () => ToolResponse.success('in'),
      }),
    );
    const checked = await registry.check('login', { password: 'hunter2' });
    expect(checked).toMatchObject({
      ok: true,
      input: { hint: 'was hunter2' },
      params: { hint: 'was [REDACTED]' },
    });
  });

  it('answers an async refinement, and a shut-down registry as call() does', async () => {
    const registry = new ToolRegistry({ breaker: false });
    registry.register(
      defineTool({
        name: 'slow',
        description: 'Has an async refinement',
        input: z.object({
          n: z.number().refine((n) => Promise.resolve(n > 0), 'positive'),
        }),
        run: () => ToolResponse.success('ran'),
      }),
    );
    expect(await registry.check('slow', { n: 1 })).toMatchObject({
      ok: true,
      input: { n: 1 },
    });
    const refused = await registry.check('slow', { n: -1 });
    if (refused.ok) throw new Error('a negative number was taken');
    expect(refused.response).toMatchObject({
      status: 'error',
      errorInfo: { code: 'INVALID_PARAM' },
    });
    registry.shutdown();
    const checked = await registry.check('slow', { n: 1 }, { callId: 'c2' });
    const called = await registry.call('slow', { n: 1 }, { callId: 'c2' });
    if (checked.ok) throw new Error('a shut-down registry took the call');
    expect(untimed(checked.response)).toEqual(untimed(called));
    expect(called.status === 'error' && called.errorInfo.code).toBe(
      'CIRCUIT_OPEN',
    );
  });

  it('never rejects, whatever it is handed', async () => {
    const { registry, runs } = countedRegistry();
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('hostile');
        },
        ownKeys: () => {
          throw new Error('hostile');
        },
      },
    );
    for (const [name, args, options] of [
      [Symbol('x'), undefined, null],
      ['deploy', hostile, hostile],
      [42, hostile, 'c'],
    ] as const) {
      const checked = await registry.check(
        name as never,
        args,
        options as never,
      );
      expect(checked.ok).toBe(false);
    }
    expect(runs.count).toBe(0);
  });
});
