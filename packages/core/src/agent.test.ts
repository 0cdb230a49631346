import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent.ts';
import { type AgentEvent } from './agent-events.ts';
import { type ChatRequest } from './chat-model.ts';
import { lastToolResult, scriptedModel } from './scripted-model.ts';

const registries: ToolRegistry[] = [];
afterEach(() => {
  for (const registry of registries.splice(0)) registry.shutdown();
});

function registryWithCalculator(
  options: ConstructorParameters<typeof ToolRegistry>[0] = {},
) {
  const registry = new ToolRegistry(options);
  registries.push(registry);
  registry.register(
    defineTool({
      name: 'calc',
      description: 'Evaluates a + b, or fails on request',
      input: z.object({
        a: z.number(),
        b: z.number(),
        mode: z.enum(['ok', 'big', 'fail', 'flaky']).default('ok'),
      }),
      run: ({ a, b, mode }) => {
        switch (mode) {
          case 'ok':
            return ToolResponse.success(String(a + b), { data: a + b });
          case 'big':
            return ToolResponse.partial((a + b).toExponential(2), {
              reason: 'truncated',
              data: { truncated: true },
            });
          case 'fail':
            return ToolResponse.error('EXECUTION_ERROR', 'Division by zero');
          case 'flaky':
            return ToolResponse.error('API_ERROR', 'upstream 502', {
              retryable: true,
            });
        }
      },
    }),
  );
  return registry;
}

function toolMessages(request: ChatRequest | undefined) {
  return (request?.messages ?? []).flatMap((message) =>
    message.role === 'tool' ? message.results : [],
  );
}

describe('Agent', () => {
  it('completes: a tool call, then the answer', async () => {
    const model = scriptedModel([
      { toolCalls: [{ name: 'calc', arguments: { a: 2, b: 12 } }] },
      (request) => ({ text: `It is ${lastToolResult(request) ?? '?'}.` }),
    ]);
    const agent = new Agent({
      model,
      registry: registryWithCalculator(),
      instructions: 'Use tools.',
    });
    const result = await agent.run('What is 2 + 12?');
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('It is 14.');
    expect(result.steps).toHaveLength(2);
    expect(model.requests[0]?.instructions).toBe('Use tools.');
    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual(['calc']);
    expect(toolMessages(model.requests[1])).toEqual([
      { callId: 'call_1', toolName: 'calc', content: '14', isError: false },
    ]);
  });

  it('flags a partial result to the model, and the model can say it is approximate', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'calc', arguments: { a: 1e11, b: 1, mode: 'big' } },
        ],
      },
      (request) => ({
        text:
          lastToolResult(request)?.startsWith(
            '[INCOMPLETE RESULT: truncated]',
          ) === true
            ? 'About 1.00e+11.'
            : 'Exactly.',
      }),
    ]);
    const result = await new Agent({
      model,
      registry: registryWithCalculator(),
    }).run('big sum');
    expect(result.text).toBe('About 1.00e+11.');
    expect(result.steps[0]?.toolCalls[0]?.outcome).toBe('partial');
  });

  it('gives an error with its code, and the model recovers', async () => {
    const model = scriptedModel([
      {
        toolCalls: [{ name: 'calc', arguments: { a: 1, b: 0, mode: 'fail' } }],
      },
      { toolCalls: [{ name: 'calc', arguments: { a: 1, b: 1 } }] },
      { text: 'Fixed: 2.' },
    ]);
    const result = await new Agent({
      model,
      registry: registryWithCalculator(),
    }).run('go');
    expect(result.stopReason).toBe('completed');
    expect(toolMessages(model.requests[1])[0]).toEqual({
      callId: 'call_1',
      toolName: 'calc',
      content:
        '[EXECUTION_ERROR] Division by zero\nRetrying the same call will not help: change the arguments or the approach.',
      isError: true,
      code: 'EXECUTION_ERROR',
    });
  });

  it('tells the model a denied call did not run, and does not count it as an error', async () => {
    const registry = registryWithCalculator({
      approve: () => ({ approved: false, reason: 'not now' }),
    });
    const model = scriptedModel([
      ...Array.from({ length: 6 }, () => ({
        toolCalls: [{ name: 'calc', arguments: { a: 1, b: 1 } }],
      })),
      { text: 'I could not run it.' },
    ]);
    const result = await new Agent({ model, registry, maxSteps: 10 }).run('go');
    expect(result.stopReason).toBe('completed');
    const sent = toolMessages(model.requests[1])[0];
    expect(sent?.isError).toBe(false);
    expect(sent?.content).toBe(
      '[DENIED] This call was NOT executed. The approval gate refused the call to "calc" (reason: not now). Do not retry it unless the user asks.',
    );
  });

  it('goes through the registry: the breaker sees agent calls and an open circuit is told to the model', async () => {
    const registry = registryWithCalculator({
      breaker: { minimumCalls: 2, resetTimeoutMs: 60_000 },
    });
    const model = scriptedModel([
      {
        toolCalls: [{ name: 'calc', arguments: { a: 1, b: 1, mode: 'flaky' } }],
      },
      {
        toolCalls: [{ name: 'calc', arguments: { a: 2, b: 2, mode: 'flaky' } }],
      },
      { toolCalls: [{ name: 'calc', arguments: { a: 3, b: 3 } }] },
      { text: 'The calculator is down.' },
    ]);
    const result = await new Agent({
      model,
      registry,
      errorBudget: { maxConsecutiveErrors: 5 },
    }).run('go');
    expect(result.stopReason).toBe('completed');
    expect(registry.health()[0]).toMatchObject({
      name: 'calc',
      state: 'open',
      window: { failures: 2 },
    });
    const third = toolMessages(model.requests[3]).at(-1);
    expect(third?.content).toMatch(
      /^\[CIRCUIT_OPEN\] The tool "calc" is unavailable for 60 s after repeated failures; it was not run\./,
    );
    expect(third?.isError).toBe(true);
    expect(model.requests[3]?.tools).toEqual([]);
  });

  it('stops on the error budget with the last errors', async () => {
    const model = scriptedModel(
      Array.from({ length: 10 }, (_, i) => ({
        toolCalls: [{ name: 'calc', arguments: { a: i, b: 0, mode: 'fail' } }],
      })),
    );
    const result = await new Agent({
      model,
      registry: registryWithCalculator(),
    }).run('go');
    expect(result.stopReason).toBe('error_budget');
    expect(result.budget?.exhausted).toBe('max_consecutive_errors');
    expect(result.budget?.lastErrors.map((error) => error.code)).toEqual([
      'EXECUTION_ERROR',
      'EXECUTION_ERROR',
      'EXECUTION_ERROR',
    ]);
    expect(model.requests).toHaveLength(3);
  });

  it('stops when the same call fails the same way twice', async () => {
    const same = {
      toolCalls: [{ name: 'calc', arguments: { a: 1, b: 0, mode: 'fail' } }],
    };
    const model = scriptedModel([same, same, same]);
    const result = await new Agent({
      model,
      registry: registryWithCalculator(),
    }).run('go');
    expect(result.budget?.exhausted).toBe('repeated_failure');
  });

  it('stops at maxSteps', async () => {
    const model = scriptedModel(
      Array.from({ length: 5 }, (_, i) => ({
        toolCalls: [{ name: 'calc', arguments: { a: i, b: 1 } }],
      })),
    );
    const result = await new Agent({
      model,
      registry: registryWithCalculator(),
      maxSteps: 3,
    }).run('loop');
    expect(result.stopReason).toBe('max_steps');
    expect(result.steps).toHaveLength(3);
  });

  it('sends malformed and unknown calls back as INVALID_FORMAT and NOT_FOUND for the model to fix', async () => {
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'calc', arguments: '{"a": 1, "b":' },
          { name: 'nope', arguments: {} },
          { name: 'calc', arguments: { a: 'x', b: 1 } },
        ],
      },
      { text: 'ok' },
    ]);
    await new Agent({
      model,
      registry: registryWithCalculator(),
      errorBudget: { maxConsecutiveErrors: 5 },
    }).run('go');
    const sent = toolMessages(model.requests[1]).map(
      (result) => result.content.split('\n')[0],
    );
    expect(sent[0]).toMatch(
      /^\[INVALID_FORMAT\] The arguments are not valid JSON/,
    );
    expect(sent[1]).toBe(
      '[NOT_FOUND] Unknown tool "nope". Available tools: calc.',
    );
    expect(sent[2]).toBe(
      '[INVALID_PARAM] Invalid arguments: a: Invalid input: expected number, received string. Fix them and call again.',
    );
  });

  it('runs parallel calls concurrently and returns results in call order', async () => {
    const registry = new ToolRegistry({ breaker: false });
    registries.push(registry);
    const started: string[] = [];
    let releaseSlow: () => void = () => undefined;
    const slowGate = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    registry.register(
      defineTool({
        name: 'wait',
        description: 'Waits for a gate',
        input: z.object({ id: z.string() }),
        run: async ({ id }) => {
          started.push(id);
          if (id === 'slow') await slowGate;
          else releaseSlow();
          return ToolResponse.success(id);
        },
      }),
    );
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'wait', arguments: { id: 'slow' } },
          { name: 'wait', arguments: { id: 'fast' } },
        ],
      },
      { text: 'done' },
    ]);
    const result = await new Agent({ model, registry }).run('go');
    expect(started).toEqual(['slow', 'fast']);
    expect(
      toolMessages(model.requests[1]).map((entry) => entry.content),
    ).toEqual(['slow', 'fast']);
    expect(result.stopReason).toBe('completed');
  });

  it('stops with aborted on a caller abort, and sends no tool error to the model', async () => {
    const registry = new ToolRegistry({ breaker: false });
    registries.push(registry);
    const controller = new AbortController();
    registry.register(
      defineTool({
        name: 'hang',
        description: 'Never ends',
        input: z.object({}),
        run: () => {
          controller.abort();
          return new Promise<ToolResponse>(() => undefined);
        },
      }),
    );
    const model = scriptedModel([
      { toolCalls: [{ name: 'hang' }] },
      { text: 'never' },
    ]);
    const result = await new Agent({ model, registry }).run('go', {
      signal: controller.signal,
    });
    expect(result.stopReason).toBe('aborted');
    expect(model.requests).toHaveLength(1);
  });

  it('reports a model failure as model_error', async () => {
    const result = await new Agent({
      model: scriptedModel([]),
      registry: registryWithCalculator(),
    }).run('go');
    expect(result.stopReason).toBe('model_error');
    expect(result.modelError).toEqual({
      kind: 'script',
      message: 'The scripted model has no step 1 (the script has 0).',
    });
  });

  it('streams typed events in order', async () => {
    const model = scriptedModel([
      {
        text: 'Let me add. ',
        toolCalls: [{ name: 'calc', arguments: { a: 1, b: 2 } }],
      },
      { text: '3' },
    ]);
    const events: AgentEvent[] = [];
    for await (const event of new Agent({
      model,
      registry: registryWithCalculator(),
    }).stream('1+2'))
      events.push(event);
    expect(
      events.map((event) =>
        event.type === 'tool-end' ? `tool-end:${event.outcome}` : event.type,
      ),
    ).toEqual([
      'text-delta',
      'tool-start',
      'tool-end:success',
      'step-end',
      'text-delta',
      'step-end',
      'done',
    ]);
  });

  it('run() ends with the result stream() ends with, tool calls and errors included', async () => {
    const script = () =>
      scriptedModel([
        {
          text: 'Adding. ',
          toolCalls: [
            { name: 'calc', arguments: { a: 1, b: 2 }, id: 'c1' },
            { name: 'calc', arguments: { a: 1, b: 0, mode: 'fail' }, id: 'c2' },
          ],
        },
        { text: '3' },
      ]);
    const registry = registryWithCalculator();
    const ran = await new Agent({ model: script(), registry }).run('1+2');
    let streamed: unknown;
    for await (const event of new Agent({ model: script(), registry }).stream(
      '1+2',
    )) {
      if (event.type === 'done') streamed = event.result;
    }
    const timeless = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value), (key, item: unknown) =>
        key === 'timeMs' || key === 'callId' ? 0 : item,
      );
    expect(ran.stopReason).toBe('completed');
    expect(ran.steps[0]?.toolCalls.map((call) => call.outcome)).toEqual([
      'success',
      'error',
    ]);
    expect(timeless(ran)).toEqual(timeless(streamed));
  });

  it.each([
    'completed',
    'max_steps',
    'error_budget',
    'aborted',
    'model_error',
  ] as const)(
    'run() and stream() end with the same result when the run stops as %s',
    async (stopReason) => {
      // Everything made fresh per run: the script, the registry (its breaker), the signal.
      const setup = () => {
        const registry = registryWithCalculator();
        const controller = new AbortController();
        registry.register(
          defineTool({
            name: 'hang',
            description: 'Aborts its caller, then never ends',
            input: z.object({}),
            run: () => {
              controller.abort();
              return new Promise<ToolResponse>(() => undefined);
            },
          }),
        );
        const fail = {
          toolCalls: [
            { name: 'calc', arguments: { a: 1, b: 0, mode: 'fail' } },
          ],
        };
        const add = (a: number) => ({
          text: `step ${a} `,
          toolCalls: [{ name: 'calc', arguments: { a, b: 1 } }],
        });
        const scripts = {
          completed: [add(1), { text: 'done' }],
          max_steps: [add(1), add(2), add(3), add(4)],
          error_budget: [fail, fail, fail, fail],
          aborted: [add(1), { toolCalls: [{ name: 'hang' }] }, { text: 'x' }],
          model_error: [add(1)],
        };
        const model = scriptedModel(scripts[stopReason]);
        const agent = new Agent({ model, registry, maxSteps: 3 });
        return { agent, model, options: { signal: controller.signal } };
      };
      const timeless = (value: unknown): unknown =>
        JSON.parse(JSON.stringify(value), (key, item: unknown) =>
          key === 'timeMs' || key === 'callId' ? 0 : item,
        );
      const one = setup();
      const ran = await one.agent.run('go', one.options);
      const two = setup();
      let streamed: unknown;
      for await (const event of two.agent.stream('go', two.options)) {
        if (event.type === 'done') streamed = event.result;
      }
      expect(ran.stopReason).toBe(stopReason);
      expect(timeless(ran)).toEqual(timeless(streamed));
      // The model saw the same requests either way.
      expect(timeless(one.model.requests)).toEqual(
        timeless(two.model.requests),
      );
    },
  );

  it('rejects bad options at construction', () => {
    const registry = registryWithCalculator();
    expect(
      () => new Agent({ model: scriptedModel([]), registry, maxSteps: 0 }),
    ).toThrow(/maxSteps/);
    expect(
      () =>
        new Agent({
          model: scriptedModel([]),
          registry,
          errorBudget: { maxErrors: -1 },
        }),
    ).toThrow(/maxErrors/);
    expect(() => new Agent({ model: {} as never, registry })).toThrow(
      /ChatModel/,
    );
  });
});

describe('Agent: what leaves the run', () => {
  it('censors secret-looking arguments in the tool-start event', async () => {
    const secret = 'sk-canary-5f1e';
    const model = scriptedModel([
      {
        toolCalls: [
          { name: 'calc', arguments: { a: 1, b: 2, apiKey: secret } },
        ],
      },
      { text: 'done' },
    ]);
    const agent = new Agent({ model, registry: registryWithCalculator() });
    const starts: AgentEvent[] = [];
    for await (const event of agent.stream('add')) {
      if (event.type === 'tool-start') starts.push(event);
    }
    expect(starts).toHaveLength(1);
    const start = starts[0];
    expect(start?.type === 'tool-start' && start.arguments).toBe(
      '{"a":1,"b":2,"apiKey":"[REDACTED]"}',
    );
    expect(JSON.stringify(starts)).not.toContain(secret);
  });

  it('passes the error-detail budget to what the model reads', async () => {
    const registry = new ToolRegistry();
    registries.push(registry);
    registry.register(
      defineTool({
        name: 'run_tests',
        description: 'Runs the tests',
        input: z.object({}),
        run: () =>
          ToolResponse.error(
            'EXECUTION_ERROR',
            'The command exited with code 1',
            {
              retryable: false,
              data: {
                stdout: `${'.'.repeat(50)}expected 5 to be 4`,
                stderr: '',
              },
            },
          ),
      }),
    );
    const model = scriptedModel([
      { toolCalls: [{ name: 'run_tests', arguments: {} }] },
      { text: 'done' },
    ]);
    const agent = new Agent({
      model,
      registry,
      toolResult: { maxDetailBytes: 18 },
    });
    const result = await agent.run('test');
    const sent = result.steps[0]?.toolCalls[0]?.sentToModel.content;
    expect(sent).toContain(
      '--- stdout ---\n[… 50 earlier bytes cut …]\nexpected 5 to be 4\n',
    );
  });
});
