import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent.ts';
import { lastToolResult, scriptedModel } from './scripted-model.ts';
import {
  registries,
  registryWithCalculator,
  toolMessages,
} from './agent-test-registry.case.ts';

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
});
