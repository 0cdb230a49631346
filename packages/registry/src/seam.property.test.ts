import { defineTool, ToolResponse } from '@candor/tools';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolRegistry } from './tool-registry.ts';

// `pnpm test:fuzz` with CANDOR_FUZZ_RUNS and CANDOR_FUZZ_SEED runs these longer or replays a
// failure; CI runs the default count.
const runs = Number(process.env['CANDOR_FUZZ_RUNS'] ?? 10_000);
const seedText = process.env['CANDOR_FUZZ_SEED'];
const settings = (numRuns: number): fc.Parameters<unknown> => ({
  numRuns,
  ...(seedText === undefined ? {} : { seed: Number(seedText) }),
});

const anyValue = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  maxDepth: 3,
});

function cyclic(): object {
  const value: Record<string, unknown> = { status: 'success', text: 'loop' };
  value['data'] = value;
  return value;
}

function throwingGetter(after: number): object {
  let reads = 0;
  return {
    status: 'success',
    get text() {
      reads += 1;
      if (reads > after) throw new Error('read too often');
      return 'text';
    },
    stats: { timeMs: 0 },
  };
}

function hostileProxy(): object {
  return new Proxy(
    {},
    {
      get() {
        throw new Error('no reads');
      },
      ownKeys() {
        throw new Error('no keys');
      },
      has() {
        throw new Error('no has');
      },
      getPrototypeOf() {
        throw new Error('no prototype');
      },
    },
  );
}

const responseLike = fc.record(
  {
    status: fc.constantFrom('success', 'partial', 'error', 'bogus'),
    text: fc.oneof(fc.string(), anyValue),
    data: anyValue,
    stats: fc.oneof(
      fc.constant({ timeMs: 0 }),
      fc.dictionary(fc.string(), fc.oneof(fc.double(), anyValue)),
    ),
    reason: fc.string(),
    errorInfo: fc.oneof(
      fc.record({
        code: fc.constantFrom('NOT_FOUND', 'TIMEOUT', 'NOPE', 'API_ERROR'),
        message: fc.string(),
        retryable: fc.boolean(),
        details: anyValue,
      }),
      anyValue,
    ),
    context: anyValue,
  },
  { requiredKeys: ['status'] },
);

const validResponse = fc
  .tuple(fc.string(), anyValue)
  .map(([text, data]) => ToolResponse.success(text, { data }));

/** What a tool returns, and how. */
const behaviour = fc.record({
  // Factories: fast-check itself inspects generated values, and hostile ones must only meet us.
  make: fc.oneof(
    anyValue.map((value) => () => value),
    responseLike.map((value) => () => value),
    validResponse.map((value) => () => value),
    fc.constant(cyclic),
    fc.integer({ min: 0, max: 2 }).map((after) => () => throwingGetter(after)),
    fc.constant(hostileProxy),
    fc.constant(
      () => JSON.parse('{"__proto__": {"polluted": true}}') as unknown,
    ),
  ),
  how: fc.constantFrom<'return' | 'resolve' | 'throw' | 'reject' | 'hang'>(
    'return',
    'resolve',
    'throw',
    'reject',
    'hang',
  ),
});

type Behaviour = typeof behaviour extends fc.Arbitrary<infer T> ? T : never;

function act({ make, how }: Behaviour): unknown {
  const value = make();
  switch (how) {
    case 'return':
      return value;
    case 'resolve':
      return Promise.resolve(value);
    case 'throw':
      throw value;
    case 'reject':
      // Tools reject with anything at all; that is the point.
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
      return Promise.reject(value);
    case 'hang':
      return new Promise(() => undefined);
  }
}

function wireSafe(response: ToolResponse): boolean {
  const json = JSON.stringify(response);
  return ToolResponse.safeParse(JSON.parse(json)).success;
}

const prototypeKeys = Object.getOwnPropertyNames(Object.prototype).sort();

function unpolluted(): boolean {
  return (
    ({} as Record<string, unknown>)['polluted'] === undefined &&
    Object.getOwnPropertyNames(Object.prototype).sort().join() ===
      prototypeKeys.join()
  );
}

const registries: ToolRegistry[] = [];
afterAll(() => {
  for (const registry of registries) registry.shutdown();
});

function registryFor(breaker: boolean): {
  registry: ToolRegistry;
  current: { behaviour: Behaviour };
  ends: { count: number };
} {
  const registry = new ToolRegistry(
    breaker ? { breaker: { minimumCalls: 1_000_000 } } : { breaker: false },
  );
  registries.push(registry);
  const current: { behaviour: Behaviour } = {
    behaviour: { make: () => undefined, how: 'return' },
  };
  registry.register(
    defineTool({
      name: 'structured',
      description: 'Does whatever the property says',
      input: z.looseObject({}),
      timeoutMs: 1,
      run: () => act(current.behaviour) as ToolResponse,
    }),
  );
  registry.register(() => act(current.behaviour), {
    name: 'plain',
  });
  const ends = { count: 0 };
  registry.on('tool:end', () => {
    ends.count += 1;
  });
  return { registry, current, ends };
}

describe('the seam, under fast-check', () => {
  it(`call() always settles with a wire-safe response and exactly one tool:end (${runs} runs)`, async () => {
    const withBreakers = registryFor(true);
    const withoutBreakers = registryFor(false);
    await fc.assert(
      fc.asyncProperty(
        behaviour,
        fc.constantFrom('structured', 'plain'),
        fc.boolean(),
        async (how, name, withBreaker) => {
          const { registry, current, ends } = withBreaker
            ? withBreakers
            : withoutBreakers;
          current.behaviour = how;
          const before = ends.count;
          const response = await registry.call(name, {}, { timeoutMs: 1 });
          return (
            wireSafe(response) && ends.count === before + 1 && unpolluted()
          );
        },
      ),
      settings(runs),
    );
  }, 120_000);

  it(`hostile arguments and options never make call() reject (${runs} runs)`, async () => {
    const { registry, current } = registryFor(true);
    current.behaviour = {
      make: () => ToolResponse.success('ok'),
      how: 'return',
    };
    const options = fc.oneof(
      anyValue.map((value) => () => value),
      fc.constant(hostileProxy),
      fc
        .record({
          timeoutMs: fc.oneof(fc.double(), anyValue),
          callId: anyValue,
          signal: anyValue,
        })
        .map((value) => () => value),
    );
    const args = fc.oneof(
      anyValue.map((value) => () => value),
      fc.string().map((value) => () => value),
      fc.json().map((value) => () => value),
      fc.constant(hostileProxy),
    );
    await fc.assert(
      fc.asyncProperty(
        anyValue,
        args,
        options,
        async (name, given, callOptions) => {
          const response = await registry.call(
            typeof name === 'string' ? name : 'structured',
            given(),
            callOptions() as never,
          );
          return wireSafe(response) && unpolluted();
        },
      ),
      settings(runs),
    );
  }, 120_000);

  it('breaker counts stay exact under concurrency', async () => {
    const outcome = fc.constantFrom(
      'success',
      'counted',
      'not-counted',
      'throw',
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(outcome, { maxLength: 40 }),
        async (outcomes) => {
          const registry = new ToolRegistry({
            breaker: { minimumCalls: 1_000_000 },
          });
          registry.register(
            defineTool({
              name: 'mixed',
              description: 'Answers as told',
              input: z.object({ i: z.number() }),
              run: async ({ i }) => {
                await Promise.resolve();
                switch (outcomes[i] ?? 'success') {
                  case 'counted':
                    return ToolResponse.error('API_ERROR', 'upstream 502');
                  case 'not-counted':
                    return ToolResponse.error('NOT_FOUND', 'no such thing');
                  case 'throw':
                    throw Object.assign(new Error('reset'), {
                      code: 'ECONNRESET',
                    });
                  case 'success':
                    return ToolResponse.success('ok');
                }
              },
            }),
          );
          await Promise.all(
            outcomes.map((_, i) => registry.call('mixed', { i })),
          );
          const failures = outcomes.filter(
            (each) => each === 'counted' || each === 'throw',
          ).length;
          const window = registry.health()[0]?.window;
          registry.shutdown();
          if (outcomes.length === 0) return window === undefined;
          expect(window).toMatchObject({
            calls: outcomes.length,
            failures,
            successes: outcomes.length - failures,
          });
          return true;
        },
      ),
      settings(Math.max(1, Math.floor(runs / 10))),
    );
  }, 120_000);

  it('breaker counts stay exact when the breaker opens under concurrency', async () => {
    const call = fc.record({
      outcome: fc.constantFrom('success', 'counted', 'not-counted', 'throw'),
      // Microtask turns before the call begins, and before the tool answers: calls begin while
      // others end, and end in another order than they began.
      wait: fc.nat({ max: 8 }),
      turns: fc.nat({ max: 8 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { maxLength: 40 }), async (calls) => {
        const registry = new ToolRegistry({
          breaker: { minimumCalls: 2, failureRatePct: 50 },
        });
        registry.register(
          defineTool({
            name: 'mixed',
            description: 'Answers as told, late',
            input: z.object({ i: z.number() }),
            run: async ({ i }) => {
              const { outcome, turns } = calls[i] ?? {
                outcome: 'success',
                turns: 0,
              };
              for (let turn = 0; turn < turns; turn++) await Promise.resolve();
              switch (outcome) {
                case 'counted':
                  return ToolResponse.error('API_ERROR', 'upstream 502');
                case 'not-counted':
                  return ToolResponse.error('NOT_FOUND', 'no such thing');
                case 'throw':
                  throw Object.assign(new Error('reset'), {
                    code: 'ECONNRESET',
                  });
                case 'success':
                  return ToolResponse.success('ok');
              }
            },
          }),
        );
        const running: Promise<ToolResponse>[] = [];
        for (const [i, { wait }] of calls.entries()) {
          for (let turn = 0; turn < wait; turn++) await Promise.resolve();
          running.push(registry.call('mixed', { i }));
        }
        const responses = await Promise.all(running);
        const codes = responses.map((response) =>
          response.status === 'error' ? response.errorInfo.code : 'ran',
        );
        const rejected = codes.filter((code) => code === 'CIRCUIT_OPEN').length;
        const failures = codes.filter(
          (code) => code === 'API_ERROR' || code === 'NETWORK_ERROR',
        ).length;
        const health = registry.health()[0];
        registry.shutdown();
        if (calls.length === 0) return health === undefined;
        // Calls that began before the breaker opened still end, and are counted as they end;
        // every refusal is counted once; nothing is counted twice.
        expect(health?.window).toMatchObject({
          calls: calls.length,
          failures,
          successes: calls.length - failures - rejected,
          rejected,
        });
        if (rejected > 0) expect(health?.state).toBe('open');
        return true;
      }),
      settings(Math.max(1, Math.floor(runs / 10))),
    );
  }, 120_000);
});
