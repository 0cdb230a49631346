import { ToolRegistry } from '@candor/registry';
import { ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from './agent.ts';
import { scriptedModel } from './scripted-model.ts';

// The example of docs/architecture.md, "Error budget and breaker": default budget, default breaker.
let registry: ToolRegistry | undefined;
afterEach(() => {
  registry?.shutdown();
});

describe('a run’s error budget and a tool’s breaker', () => {
  it('the budget stops each run before the default breaker trips; the breaker counts across runs', async () => {
    registry = new ToolRegistry();
    let ran = 0;
    registry.register(
      function flaky_api(args: { page: number }) {
        ran += 1;
        return ToolResponse.error('API_ERROR', `page ${args.page}: 502`);
      },
      { description: 'A remote API that is down' },
    );
    const callPages = (...pages: number[]) =>
      scriptedModel(
        pages.map((page) => ({
          toolCalls: [{ name: 'flaky_api', arguments: { page } }],
        })),
      );
    const state = () =>
      registry?.health().find((entry) => entry.name === 'flaky_api')?.state;

    // Run 1: three failures in a row spend the default budget (3 consecutive errors). Three
    // calls are under the breaker's minimumCalls (5), so the circuit is still closed.
    const first = await new Agent({
      model: callPages(1, 2, 3, 4),
      registry,
    }).run('fetch the pages');
    expect(first.stopReason).toBe('error_budget');
    expect(first.budget?.exhausted).toBe('max_consecutive_errors');
    expect(ran).toBe(3);
    expect(state()).toBe('closed');

    // Run 2, same registry: a fresh budget, but the breaker remembers run 1. Its 5th failure
    // opens the circuit, and the next call is refused without running the tool.
    const second = await new Agent({
      model: callPages(5, 6, 7, 8),
      registry,
    }).run('try again');
    expect(state()).toBe('open');
    expect(ran).toBe(5);
    const codes = second.steps.flatMap((step) =>
      step.toolCalls.map((entry) =>
        entry.response.status === 'error'
          ? entry.response.errorInfo.code
          : 'ok',
      ),
    );
    expect(codes).toEqual(['API_ERROR', 'API_ERROR', 'CIRCUIT_OPEN']);
    expect(second.steps[2]?.toolCalls[0]?.sentToModel.content).toMatch(
      /^\[CIRCUIT_OPEN\] The tool "flaky_api" is unavailable/u,
    );
    expect(second.stopReason).toBe('error_budget');
  });
});
