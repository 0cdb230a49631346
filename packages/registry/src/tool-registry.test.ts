import { getEventListeners } from 'node:events';
import { defineTool, ToolResponse } from '@candor/tools';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { type ToolEndEvent } from './registry-events.ts';
import { ToolRegistry, type ToolRegistryOptions } from './tool-registry.ts';

const echo = defineTool({
  name: 'echo',
  description: 'Echoes a message',
  input: z.object({
    message: z.string(),
    times: z.number().int().min(1).default(1),
  }),
  run: ({ message, times }) =>
    ToolResponse.success(message.repeat(times), { data: { times } }),
});

function setup(options: ToolRegistryOptions = {}) {
  const registry = new ToolRegistry({ breaker: false, ...options });
  const ends: ToolEndEvent[] = [];
  registry.on('tool:end', (event) => ends.push(event));
  return { registry, ends };
}

describe('1. lookup', () => {
  it('answers an unknown tool with NOT_FOUND listing the available names', async () => {
    const { registry, ends } = setup();
    registry.register(echo).register(function ping() {
      return 'pong';
    });
    const response = await registry.call('nope', {});
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'NOT_FOUND',
    );
    expect(response.text).toBe(
      'Unknown tool "nope". Available tools: echo, ping.',
    );
    expect(ends[0]).toMatchObject({
      stage: 'lookup',
      outcome: 'error',
      code: 'NOT_FOUND',
    });
  });
});

describe('2. arguments', () => {
  it('accepts a JSON string or an object', async () => {
    const { registry } = setup();
    registry.register(echo);
    expect(
      (await registry.call('echo', '{"message":"hi","times":2}')).text,
    ).toBe('hihi');
    expect((await registry.call('echo', { message: 'yo' })).text).toBe('yo');
  });

  it('answers invalid JSON with INVALID_FORMAT without running the tool', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const { registry, ends } = setup();
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const response = await registry.call('spy', '{"message": "hi"');
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'INVALID_FORMAT',
    );
    expect(response.text).toMatch(
      /^The arguments are not valid JSON \(.+\)\. Send a JSON object/,
    );
    expect(run).not.toHaveBeenCalled();
    expect(ends[0]?.stage).toBe('arguments');
  });

  it('answers a schema failure with INVALID_PARAM naming each path, without values or stacks', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const { registry } = setup();
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const response = await registry.call('spy', {
      message: 42,
      times: 0,
      password: 'hunter22',
    });
    expect(response.status).toBe('error');
    if (response.status !== 'error') return;
    expect(response.errorInfo.code).toBe('INVALID_PARAM');
    expect(response.text).toBe(
      'Invalid arguments: message: Invalid input: expected string, received number; times: Too small: expected number to be >=1. Fix them and call again.',
    );
    expect(response.errorInfo.details).toEqual({
      issues: [
        {
          path: 'message',
          message: 'Invalid input: expected string, received number',
        },
        { path: 'times', message: 'Too small: expected number to be >=1' },
      ],
    });
    expect(response.text).not.toContain('hunter22');
    expect(response.text).not.toMatch(/\n\s+at /);
    expect(run).not.toHaveBeenCalled();
  });

  it('treats missing or empty arguments as an empty object', async () => {
    const { registry } = setup();
    registry.register(function noArgs() {
      return 'fine';
    });
    expect((await registry.call('noArgs')).status).toBe('success');
    expect((await registry.call('noArgs', '')).status).toBe('success');
  });
});

describe('3. approval gate', () => {
  it('returns a denial, does not run the tool, and shows censored params to the gate', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const approve = vi.fn(() => ({
      approved: false,
      reason: 'deploys need a human',
    }));
    const { registry, ends } = setup({ approve });
    registry.register(
      defineTool({
        ...echo,
        name: 'deploy',
        input: z.object({ apiKey: z.string() }),
        run,
      }),
    );
    const response = await registry.call(
      'deploy',
      { apiKey: 'sk-live-123' },
      { callId: 'c9' },
    );
    expect(response.status === 'error' && response.errorInfo).toEqual({
      code: 'ACCESS_DENIED',
      message:
        'The approval gate refused the call to "deploy" (reason: deploys need a human).',
      retryable: false,
      denied: true,
    });
    expect(run).not.toHaveBeenCalled();
    expect(approve).toHaveBeenCalledWith({
      toolName: 'deploy',
      callId: 'c9',
      params: { apiKey: '[REDACTED]' },
    });
    expect(ends[0]).toMatchObject({
      stage: 'approval',
      outcome: 'denied',
      code: 'ACCESS_DENIED',
    });
  });

  it('runs the tool when approved, sync or async', async () => {
    const { registry } = setup({ approve: async () => true });
    registry.register(echo);
    expect((await registry.call('echo', { message: 'ok' })).status).toBe(
      'success',
    );
  });

  it('reports a failing gate as INTERNAL_ERROR and does not run the tool', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const { registry } = setup({
      approve: () => {
        throw new Error('policy service down');
      },
    });
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const response = await registry.call('spy', { message: 'x' });
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'INTERNAL_ERROR',
    );
    expect(response.text).toBe(
      'The approval gate failed, so "spy" was not run: policy service down',
    );
    expect(run).not.toHaveBeenCalled();
  });

  it('refuses on any answer but true or { approved: true }, a throwing getter included', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const answers: unknown[] = [
      undefined,
      'yes',
      1,
      { approved: 'true' },
      new Proxy(
        {},
        {
          get: () => {
            throw new Error('hostile getter');
          },
        },
      ),
    ];
    const { registry } = setup({
      approve: () => answers.shift() as boolean,
    });
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const codes: unknown[] = [];
    for (let i = 0; i < 5; i += 1) {
      const response = await registry.call('spy', { message: 'x' });
      codes.push(response.status === 'error' && response.errorInfo.code);
    }
    expect(codes).toEqual([
      'ACCESS_DENIED',
      'ACCESS_DENIED',
      'ACCESS_DENIED',
      'ACCESS_DENIED',
      'INTERNAL_ERROR',
    ]);
    expect(run).not.toHaveBeenCalled();
  });
});

describe('3b. per-call approval (CallOptions.approve)', () => {
  it('decides instead of the registry gate, which it receives to defer to', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const gate = vi.fn(() => false);
    const { registry, ends } = setup({ approve: gate });
    registry.register(defineTool({ ...echo, name: 'spy', run }));

    const approved = await registry.call(
      'spy',
      { message: 'x' },
      { approve: () => true },
    );
    expect(approved.status).toBe('success');
    expect(gate).not.toHaveBeenCalled();

    const deferred = await registry.call(
      'spy',
      { message: 'y' },
      {
        callId: 'c2',
        approve: (request, registryGate) => registryGate(request),
      },
    );
    expect(deferred.status === 'error' && deferred.errorInfo.denied).toBe(true);
    expect(gate).toHaveBeenCalledWith({
      toolName: 'spy',
      callId: 'c2',
      params: { message: 'y' },
    });

    const refused = await registry.call(
      'spy',
      { message: 'z' },
      { approve: () => ({ approved: false, reason: 'the user said no' }) },
    );
    expect(refused.text).toBe(
      'The approval gate refused the call to "spy" (reason: the user said no).',
    );
    expect(run).toHaveBeenCalledTimes(1);
    expect(ends.map((end) => end.stage)).toEqual([
      'run',
      'approval',
      'approval',
    ]);
  });

  it('runs on a registry without a gate, whose stand-in gate approves', async () => {
    const { registry } = setup();
    registry.register(echo);
    const seen: unknown[] = [];
    const response = await registry.call(
      'echo',
      { message: 'ok' },
      {
        approve: async (request, gate) => {
          seen.push(await gate(request));
          return { approved: false };
        },
      },
    );
    expect(seen).toEqual([true]);
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'ACCESS_DENIED',
    );
  });

  it('maps a throwing per-call hook to INTERNAL_ERROR without running the tool', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const { registry } = setup();
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const response = await registry.call(
      'spy',
      { message: 'x' },
      {
        approve: () => Promise.reject(new Error('client gone')),
      },
    );
    expect(response.text).toBe(
      'The approval gate failed, so "spy" was not run: client gone',
    );
    expect(run).not.toHaveBeenCalled();
  });
});

describe('5. run: timeout and cancellation', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives TIMEOUT when the tool hangs past its limit, and aborts the tool’s signal', async () => {
    let seen: AbortSignal | undefined;
    const { registry, ends } = setup({ timeoutMs: 1000 });
    registry.register(
      defineTool({
        ...echo,
        name: 'hang',
        run: (_input, { signal }) => {
          seen = signal;
          return new Promise<ToolResponse>(() => undefined);
        },
      }),
    );
    const pending = registry.call('hang', { message: 'x' });
    await vi.advanceTimersByTimeAsync(999);
    expect(seen?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const response = await pending;
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'TIMEOUT',
      retryable: true,
    });
    expect(response.text).toBe('Tool "hang" did not finish within 1000 ms.');
    expect(seen?.aborted).toBe(true);
    expect((seen?.reason as DOMException).name).toBe('TimeoutError');
    expect(ends).toHaveLength(1);
  });

  it('uses the tool’s own timeoutMs and a per-call override', async () => {
    const { registry } = setup({ timeoutMs: 10_000 });
    registry.register(
      defineTool({
        ...echo,
        name: 'slow',
        timeoutMs: 50,
        run: () => new Promise<ToolResponse>(() => undefined),
      }),
    );
    const byTool = registry.call('slow', { message: 'x' });
    await vi.advanceTimersByTimeAsync(50);
    expect((await byTool).text).toBe(
      'Tool "slow" did not finish within 50 ms.',
    );
    const byCall = registry.call('slow', { message: 'x' }, { timeoutMs: 20 });
    await vi.advanceTimersByTimeAsync(20);
    expect((await byCall).text).toBe(
      'Tool "slow" did not finish within 20 ms.',
    );
  });

  it('reports a caller abort as cancelled, at once, and ignores the late answer', async () => {
    let finishLate: (response: ToolResponse) => void = () => undefined;
    const { registry } = setup();
    registry.register(
      defineTool({
        ...echo,
        name: 'late',
        run: () =>
          new Promise<ToolResponse>((resolve) => {
            finishLate = resolve;
          }),
      }),
    );
    const controller = new AbortController();
    const pending = registry.call(
      'late',
      { message: 'x' },
      { signal: controller.signal },
    );
    await vi.advanceTimersByTimeAsync(0);
    controller.abort();
    const response = await pending;
    finishLate(ToolResponse.success('too late'));
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
      retryable: false,
    });
    expect(response.text).toBe(
      'The call to "late" was cancelled by the caller.',
    );
  });

  it("follows the caller's signal only while an asynchronous tool runs", async () => {
    const { registry } = setup();
    const controller = new AbortController();
    const listeners = (): number =>
      getEventListeners(controller.signal, 'abort').length;
    const seen: number[] = [];
    registry.register(
      defineTool({
        ...echo,
        name: 'now',
        run: () => {
          seen.push(listeners());
          return ToolResponse.success('done');
        },
      }),
    );
    let finish: (response: ToolResponse) => void = () => undefined;
    registry.register(
      defineTool({
        ...echo,
        name: 'later',
        run: () =>
          new Promise<ToolResponse>((resolve) => {
            finish = resolve;
          }),
      }),
    );
    const options = { signal: controller.signal };
    expect((await registry.call('now', { message: 'x' }, options)).status).toBe(
      'success',
    );
    // A synchronous tool is over before anyone could cancel it: no listener, ever.
    expect(seen).toEqual([0]);
    const pending = registry.call('later', { message: 'x' }, options);
    await vi.advanceTimersByTimeAsync(0);
    expect(listeners()).toBe(1);
    finish(ToolResponse.success('done'));
    expect((await pending).status).toBe('success');
    expect(listeners()).toBe(0);
  });

  it('cancels an asynchronous tool whose start aborted the caller', async () => {
    const { registry } = setup();
    const controller = new AbortController();
    registry.register(
      defineTool({
        ...echo,
        name: 'self',
        run: () => {
          // The caller's signal aborts before the tool's promise is handed back.
          controller.abort();
          return new Promise<ToolResponse>(() => undefined);
        },
      }),
    );
    const response = await registry.call(
      'self',
      { message: 'x' },
      { signal: controller.signal },
    );
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
    });
  });

  it("aborts the tool's signal when the caller cancels during the tool's synchronous start", async () => {
    // The caller cancels from its progress listener, which runs inside the tool's first
    // synchronous stretch; the signal the tool reads right after must already say so, or the
    // tool starts work the caller no longer wants.
    const { registry } = setup();
    const controller = new AbortController();
    const seen: boolean[] = [];
    const started: string[] = [];
    registry.register(
      defineTool({
        ...echo,
        name: 'steps',
        run: async (_input, { signal, reportProgress }) => {
          for (const step of ['first', 'second']) {
            reportProgress?.({ progress: 1 });
            seen.push(signal.aborted);
            if (signal.aborted) break;
            started.push(step);
            await Promise.resolve();
          }
          return ToolResponse.success('done');
        },
      }),
    );
    const response = await registry.call(
      'steps',
      { message: 'x' },
      {
        signal: controller.signal,
        onProgress: () => {
          controller.abort();
        },
      },
    );
    expect(seen).toEqual([true]);
    expect(started).toEqual([]);
    expect(response.status === 'error' && response.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      cancelled: true,
    });
  });

  it('aborts the signal a synchronous tool read when its caller cancels while it runs', async () => {
    const { registry } = setup();
    const controller = new AbortController();
    let seen: boolean | undefined;
    registry.register(
      defineTool({
        ...echo,
        name: 'now',
        run: (_input, { signal }) => {
          controller.abort();
          seen = signal.aborted;
          return ToolResponse.success('done');
        },
      }),
    );
    const options = { signal: controller.signal };
    const response = await registry.call('now', { message: 'x' }, options);
    expect(seen).toBe(true);
    // A synchronous tool's answer stands: it was over before anyone could act on the abort.
    expect(response.status).toBe('success');
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it("runs a tool that reads its signal when the caller's signal cannot be followed", async () => {
    const { registry } = setup();
    const real = new AbortController().signal;
    // An AbortSignal by `instanceof` whose addEventListener throws.
    const hostile = new Proxy(real, {
      get(target, key) {
        if (key === 'addEventListener') throw new Error('no listeners here');
        return Reflect.get(target, key) as unknown;
      },
    });
    let seen: boolean | undefined;
    registry.register(
      defineTool({
        ...echo,
        name: 'reads',
        run: async (_input, { signal }) => {
          seen = signal.aborted;
          await Promise.resolve();
          return ToolResponse.success('done');
        },
      }),
    );
    const response = await registry.call(
      'reads',
      { message: 'x' },
      { signal: hostile },
    );
    expect(seen).toBe(false);
    expect(response.status).toBe('success');
  });

  it.each([
    [
      'a bare AbortSignal prototype',
      () => Object.create(AbortSignal.prototype) as AbortSignal,
    ],
    [
      'a Proxy whose every read throws',
      () =>
        new Proxy(new AbortController().signal, {
          get() {
            throw new Error('hostile');
          },
        }),
    ],
  ])(
    'answers, never rejects, when the caller passes %s as its signal',
    async (_label, make) => {
      const { registry } = setup();
      const answer = ToolResponse.success('done');
      registry.register(
        defineTool({ ...echo, name: 'sync', run: () => answer }),
      );
      registry.register(
        defineTool({
          ...echo,
          name: 'async',
          run: () => Promise.resolve(answer),
        }),
      );
      registry.register(
        defineTool({
          ...echo,
          name: 'retried',
          idempotent: true,
          retry: {},
          run: () => answer,
        }),
      );
      // A signal whose reads throw cannot be asked whether it aborted: the call is refused as
      // the registry's own failure, as a response.
      for (const name of ['sync', 'async', 'retried']) {
        const response = await registry.call(
          name,
          { message: 'x' },
          { signal: make() },
        );
        expect([
          name,
          response.status === 'error'
            ? response.errorInfo.code
            : response.status,
        ]).toEqual([name, 'INTERNAL_ERROR']);
      }
    },
  );

  it("adds no listener to the caller's signal when a tool reads its signal after its call ended", async () => {
    const { registry } = setup();
    const controller = new AbortController();
    const kept: { signal: AbortSignal }[] = [];
    registry.register(
      defineTool({
        ...echo,
        name: 'keeps',
        run: async (_input, context) => {
          kept.push(context);
          await Promise.resolve();
          return ToolResponse.success('done');
        },
      }),
    );
    registry.register(
      defineTool({
        ...echo,
        name: 'keeps_sync',
        run: (_input, context) => {
          kept.push(context);
          return ToolResponse.success('done');
        },
      }),
    );
    const options = { signal: controller.signal };
    expect(
      (await registry.call('keeps', { message: 'x' }, options)).status,
    ).toBe('success');
    expect(
      (await registry.call('keeps_sync', { message: 'x' }, options)).status,
    ).toBe('success');
    // Read late (a callback the tool left behind): the calls are over, nothing may follow.
    expect(kept.map(({ signal }) => signal.aborted)).toEqual([false, false]);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('does not run a tool whose caller already aborted', async () => {
    const run = vi.fn(() => ToolResponse.success('ran'));
    const { registry } = setup();
    registry.register(defineTool({ ...echo, name: 'spy', run }));
    const response = await registry.call(
      'spy',
      { message: 'x' },
      { signal: AbortSignal.abort() },
    );
    expect(response.status === 'error' && response.errorInfo.cancelled).toBe(
      true,
    );
    expect(run).not.toHaveBeenCalled();
  });
});

describe('6. normalisation', () => {
  it.each([
    [
      'a string from a defineTool tool',
      'plain text',
      'expected a ToolResponse, got a string',
    ],
    ['undefined', undefined, 'expected a ToolResponse, got a undefined'],
    ['null', null, 'expected a ToolResponse, got null'],
    [
      'a response without stats',
      { status: 'success', text: 'x' },
      'Invalid ToolResponse: stats:',
    ],
    [
      'an error without errorInfo',
      { status: 'error', text: 'x', stats: { timeMs: 0 } },
      'Invalid ToolResponse: errorInfo:',
    ],
  ])(
    'turns %s into INTERNAL_ERROR naming what was wrong',
    async (_label, value, problem) => {
      const { registry } = setup();
      registry.register(
        defineTool({ ...echo, name: 'junk', run: () => value as ToolResponse }),
      );
      const response = await registry.call('junk', { message: 'x' });
      expect(response.status === 'error' && response.errorInfo.code).toBe(
        'INTERNAL_ERROR',
      );
      expect(response.text).toContain(
        `Tool "junk" returned an invalid result: ${problem}`,
      );
    },
  );

  const withOutput = {
    ...echo,
    name: 'counted',
    output: z.object({ count: z.number() }),
    run: () => ToolResponse.success('done', { data: { count: 'three' } }),
  };

  it('makes an output-schema mismatch an ERROR for an idempotent tool', async () => {
    const { registry } = setup();
    registry.register(defineTool({ ...withOutput, idempotent: true }));
    const response = await registry.call('counted', { message: 'x' });
    expect(response.status === 'error' && response.errorInfo.code).toBe(
      'INTERNAL_ERROR',
    );
    expect(response.text).toMatch(
      /does not match its output schema: count: Invalid input: expected number/,
    );
  });

  it('makes an output-schema mismatch a PARTIAL for a tool with side effects', async () => {
    const { registry } = setup();
    registry.register(defineTool(withOutput));
    const response = await registry.call('counted', { message: 'x' });
    expect(response.status === 'partial' && response.reason).toBe(
      'output_schema_mismatch',
    );
    expect(response.text).toMatch(
      /^done\n\n\[Note: the tool ran, but its result does not match/,
    );
    expect(response.data).toEqual({ count: 'three' });
  });

  it('accepts output that matches', async () => {
    const { registry } = setup();
    registry.register(
      defineTool({
        ...withOutput,
        run: () => ToolResponse.success('3', { data: { count: 3 } }),
      }),
    );
    expect((await registry.call('counted', { message: 'x' })).status).toBe(
      'success',
    );
  });
});

describe('7. timing and context', () => {
  it('sets stats.timeMs and context with toolName, callId and censored params', async () => {
    const { registry } = setup();
    registry.register(function login(args: { user: string; password: string }) {
      return `welcome ${args.user}`;
    });
    const response = await registry.call(
      'login',
      { user: 'ada', password: 'pw-secret-1' },
      { callId: 'call-7' },
    );
    expect(response.stats.timeMs).toBeGreaterThanOrEqual(0);
    expect(response.context).toEqual({
      toolName: 'login',
      callId: 'call-7',
      params: { user: 'ada', password: '[REDACTED]' },
    });
  });

  it('generates a unique callId when none is given', async () => {
    const { registry } = setup();
    registry.register(echo);
    const ids = new Set<unknown>();
    for (let i = 0; i < 100; i++) {
      const response = await registry.call('echo', { message: 'x' });
      expect(response.context?.callId).toMatch(/^call_[0-9a-f]{8}_[0-9a-z]+$/);
      ids.add(response.context?.callId);
    }
    expect(ids.size).toBe(100);
  });
});

describe('8. events and logging', () => {
  it('emits tool:start and exactly one tool:end with outcome, code, duration and result length', async () => {
    const { registry, ends } = setup();
    const starts: unknown[] = [];
    registry.on('tool:start', (event) => starts.push(event));
    registry.register(echo);
    await registry.call('echo', { message: 'abc', times: 2 }, { callId: 'c1' });
    await registry.call('echo', { message: 1 }, { callId: 'c2' });
    expect(starts).toEqual([
      { toolName: 'echo', callId: 'c1', params: { message: 'abc', times: 2 } },
      { toolName: 'echo', callId: 'c2', params: { message: 1 } },
    ]);
    expect(ends).toHaveLength(2);
    expect(ends[0]).toMatchObject({
      toolName: 'echo',
      callId: 'c1',
      outcome: 'success',
      resultLength: 6,
      stage: 'run',
    });
    expect(ends[0]?.code).toBeUndefined();
    expect(ends[1]).toMatchObject({
      outcome: 'error',
      code: 'INVALID_PARAM',
      stage: 'arguments',
    });
    expect(ends[1]?.resultLength).toBe(ends[1]?.response.text.length);
    expect(ends[0]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('measures the result text, never the arguments', async () => {
    const { registry, ends } = setup();
    registry.register(function short() {
      return 'ok';
    });
    await registry.call('short', { big: 'x'.repeat(10_000) });
    expect(ends[0]?.resultLength).toBe(2);
  });

  it('survives listeners that throw, and logs them', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(line) },
    );
    const { registry } = setup({ logger });
    registry.on('tool:start', () => {
      throw new Error('listener bug');
    });
    registry.on('tool:end', () => {
      throw new Error('listener bug');
    });
    registry.register(echo);
    const response = await registry.call('echo', { message: 'fine' });
    expect(response.status).toBe('success');
    expect(
      lines.filter((line) => line.includes('registry event listener threw')),
    ).toHaveLength(2);
  });

  it('emits tool:registered for each register(), saying whether it replaced a tool', () => {
    const { registry } = setup();
    const seen: unknown[] = [];
    const off = registry.on('tool:registered', (event) => seen.push(event));
    registry.register(echo);
    registry.register(echo, { replace: true });
    expect(() => registry.register(echo)).toThrow(/already registered/);
    off();
    registry.register(function later() {
      return 'x';
    });
    expect(seen).toEqual([
      { toolName: 'echo', replaced: false },
      { toolName: 'echo', replaced: true },
    ]);
  });

  it('registers the tool even when a tool:registered listener throws', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(line) },
    );
    const { registry } = setup({ logger });
    registry.on('tool:registered', () => {
      throw new Error('listener bug');
    });
    registry.register(echo);
    expect((await registry.call('echo', { message: 'ok' })).status).toBe(
      'success',
    );
    expect(
      lines.filter((line) => line.includes('registry event listener threw')),
    ).toHaveLength(1);
  });

  it('writes one log line per call, with secrets censored at any depth', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      { write: (line: string) => lines.push(line) },
    );
    const { registry } = setup({ logger });
    registry.register(function connect() {
      return 'connected';
    });
    await registry.call('connect', {
      host: 'db',
      auth: {
        Authorization: 'Bearer abc',
        nested: [{ api_key: 'k-123', private_key: 'pk' }],
      },
      headers: { cookie: 'sid=1', 'X-Access-Token': 't0k' },
      maxTokens: 100,
    });
    expect(lines).toHaveLength(1);
    const line = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({
      component: 'tool-registry',
      tool: 'connect',
      outcome: 'success',
      stage: 'run',
      msg: 'tool call finished',
    });
    expect(line['params']).toEqual({
      host: 'db',
      auth: '[REDACTED]',
      headers: { cookie: '[REDACTED]', 'X-Access-Token': '[REDACTED]' },
      maxTokens: 100,
    });
    const deep = await registry.call('connect', {
      a: { b: { c: { password: 'deep-pass' } } },
    });
    expect(deep.context?.params).toEqual({
      a: { b: { c: { password: '[REDACTED]' } } },
    });
  });

  it('scrubs secret values from model-visible messages', async () => {
    const { registry } = setup();
    registry.register(function leaky(args: { token: string }) {
      throw new Error(`upstream rejected token ${args.token}`);
    });
    const response = await registry.call('leaky', '{"token":"tok-9f8e7d"}');
    expect(response.text).toBe('upstream rejected token [REDACTED]');
    expect(response.status === 'error' && response.errorInfo.message).toBe(
      'upstream rejected token [REDACTED]',
    );
  });

  it('censors a secret the tool returns in its data, everywhere the response goes', async () => {
    const { registry } = setup();
    registry.register(
      defineTool({
        name: 'login',
        description: 'Returns a session',
        input: z.object({}),
        run: () =>
          ToolResponse.success('session tok-5e55i0n ready', {
            data: {
              user: 'ada',
              sessionToken: 'tok-5e55i0n',
              log: ['tok-5e55i0n'],
            },
          }),
      }),
    );
    const ended: unknown[] = [];
    registry.on('tool:end', (event) => ended.push(event));
    const response = await registry.call('login', {});
    expect(response.text).toBe('session [REDACTED] ready');
    expect(response.data).toEqual({
      user: 'ada',
      sessionToken: '[REDACTED]',
      log: ['[REDACTED]'],
    });
    expect(JSON.stringify(ended)).not.toContain('tok-5e55i0n');
  });

  it('censors secrets in keys the wire schema does not name, at the top and in errorInfo', async () => {
    const { registry } = setup();
    // The wire schema keeps unknown keys (a newer producer's fields), so they leave the seam:
    // censored like the named ones.
    const extra = {
      apiKey: 'sk-top-7d1e',
      debug: { password: 'pw-nested-42', echo: 'arg tok-arg-9c3b was used' },
      trace: ['tok-arg-9c3b'],
    };
    registry.register(
      defineTool({
        name: 'extras',
        description: 'Returns fields beyond the named ones',
        input: z.looseObject({}),
        run: () => ({
          ...ToolResponse.success('ok'),
          ...extra,
        }),
      }),
    );
    registry.register(
      defineTool({
        name: 'extra_error',
        description: 'Fails with fields beyond the named ones in errorInfo',
        input: z.looseObject({}),
        run: () => {
          const failed = ToolResponse.error('EXECUTION_ERROR', 'it failed');
          return {
            ...failed,
            errorInfo: { ...failed.errorInfo, ...extra },
            ...extra,
          };
        },
      }),
    );
    const ended: unknown[] = [];
    registry.on('tool:end', (event) => ended.push(event));
    const ok = await registry.call('extras', { token: 'tok-arg-9c3b' });
    expect(ok.status).toBe('success');
    expect(ok).toMatchObject({
      apiKey: '[REDACTED]',
      debug: { password: '[REDACTED]', echo: 'arg [REDACTED] was used' },
      trace: ['[REDACTED]'],
    });
    const failed = await registry.call('extra_error', {
      token: 'tok-arg-9c3b',
    });
    expect(failed.status === 'error' && failed.errorInfo).toMatchObject({
      code: 'EXECUTION_ERROR',
      apiKey: '[REDACTED]',
      debug: { password: '[REDACTED]', echo: 'arg [REDACTED] was used' },
    });
    const everything = JSON.stringify([ok, failed, ended]);
    for (const secret of ['sk-top-7d1e', 'pw-nested-42', 'tok-arg-9c3b']) {
      expect(everything).not.toContain(secret);
    }
    // Still the wire form after a JSON round trip.
    for (const response of [ok, failed]) {
      expect(
        ToolResponse.safeParse(JSON.parse(JSON.stringify(response))).success,
      ).toBe(true);
    }
  });

  it('writes nothing by default', async () => {
    const write = vi.spyOn(process.stdout, 'write');
    const { registry } = setup();
    registry.register(echo);
    await registry.call('echo', { message: 'quiet' });
    expect(write).not.toHaveBeenCalled();
    write.mockRestore();
  });
});

describe('progress', () => {
  const steps = defineTool({
    name: 'steps',
    description: 'Reports progress, some of it malformed',
    input: z.object({}),
    run: (_input, { reportProgress }) => {
      reportProgress?.({ progress: 1, total: 3, message: 'first' });
      reportProgress?.({ progress: Number.NaN });
      reportProgress?.(null as never);
      reportProgress?.({
        progress: 2,
        total: 'many' as never,
        message: 7 as never,
      });
      return ToolResponse.success('done');
    },
  });

  it("passes the tool's well-formed reports to onProgress and drops the rest", async () => {
    const { registry } = setup();
    registry.register(steps);
    const reports: unknown[] = [];
    const response = await registry.call(
      'steps',
      {},
      { onProgress: (report) => reports.push(report) },
    );
    expect(response.status).toBe('success');
    expect(reports).toEqual([
      { progress: 1, total: 3, message: 'first' },
      { progress: 2 },
    ]);
  });

  it('is a no-op without onProgress, and a throwing listener cannot fail the call', async () => {
    const { registry } = setup();
    registry.register(steps);
    expect((await registry.call('steps', {})).status).toBe('success');
    const response = await registry.call(
      'steps',
      {},
      {
        onProgress: () => {
          throw new Error('listener bug');
        },
      },
    );
    expect(response.status).toBe('success');
  });
});

describe('specs', () => {
  it('gives json-schema specs the output schema of tools that declare one, and only those', () => {
    const { registry } = setup();
    registry.register(echo);
    registry.register(
      defineTool({
        name: 'sized',
        description: 'Has an output schema',
        input: z.object({}),
        output: z.object({ size: z.number() }),
        run: () => ToolResponse.success('1', { data: { size: 1 } }),
      }),
    );
    const [plain, sized] = registry.specs({ format: 'json-schema' });
    expect(plain).not.toHaveProperty('outputSchema');
    expect(sized?.outputSchema).toEqual({
      type: 'object',
      properties: { size: { type: 'number' } },
      required: ['size'],
      additionalProperties: false,
    });
  });
});

describe('specs: one frozen spec per tool', () => {
  it('hands out the same frozen spec until the tool is replaced', () => {
    const { registry } = setup();
    registry.register(echo);
    const [first] = registry.specs();
    const [again] = registry.specs();
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(registry.specs()).not.toBe(registry.specs());
    registry.register(defineTool({ ...echo, description: 'A new echo' }), {
      replace: true,
    });
    const [replaced] = registry.specs();
    expect(replaced).not.toBe(first);
    expect(replaced?.description).toBe('A new echo');
  });
});

describe('signals are made only when a tool reads one', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('hands a tool that reads its signal late an already aborted one', async () => {
    vi.useFakeTimers();
    let context: { readonly signal: AbortSignal } | undefined;
    const { registry } = setup({ timeoutMs: 100 });
    registry.register(
      defineTool({
        ...echo,
        name: 'late_reader',
        run: (_input, runContext) => {
          context = runContext;
          return new Promise<ToolResponse>(() => undefined);
        },
      }),
    );
    const pending = registry.call('late_reader', { message: 'x' });
    await vi.advanceTimersByTimeAsync(100);
    expect((await pending).status === 'error').toBe(true);
    expect(context?.signal.aborted).toBe(true);
    expect((context?.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('gives a tool the caller’s reason when the caller aborts', async () => {
    const controller = new AbortController();
    let seen: AbortSignal | undefined;
    let started: () => void = () => undefined;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    const { registry } = setup();
    registry.register(
      defineTool({
        ...echo,
        name: 'reader',
        run: (_input, { signal }) => {
          seen = signal;
          started();
          return new Promise<ToolResponse>(() => undefined);
        },
      }),
    );
    const pending = registry.call(
      'reader',
      { message: 'x' },
      { signal: controller.signal },
    );
    await running;
    controller.abort('user pressed stop');
    await pending;
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe('user pressed stop');
  });
});
