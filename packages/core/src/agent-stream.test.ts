import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent.ts';
import { type AgentEvent } from './agent-events.ts';
import { scriptedModel } from './scripted-model.ts';
import {
  registries,
  registryWithCalculator,
} from './agent-test-registry.case.ts';

describe('Agent: ends, events and options', () => {
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
