import { existsSync, readFileSync } from 'node:fs';
import { ToolRegistry } from '@candor/registry';
import { ToolResponse } from '@candor/tools';
import { afterEach, describe, expect, it } from 'vitest';
import { Agent } from './agent.ts';
import { ErrorBudget } from './error-budget.ts';
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

// How many errors of one kind the default budget takes before it is exhausted.
function budgetLimit(
  expected: 'max_errors' | 'max_consecutive_errors' | 'repeated_failure',
): number {
  const budget = new ErrorBudget();
  for (let call = 1; call <= 100; call += 1) {
    if (expected === 'max_errors' && call % 2 === 0) {
      // A success between errors keeps the consecutive count from ending the run first.
      budget.record({
        outcome: 'success',
        toolName: 't',
        callId: `ok${String(call)}`,
        arguments: '{}',
      });
      continue;
    }
    const exhausted = budget.record({
      outcome: 'error',
      toolName: 't',
      callId: `c${String(call)}`,
      arguments: expected === 'repeated_failure' ? '{}' : `{"n":${call}}`,
      code: 'API_ERROR',
    });
    if (exhausted !== undefined) {
      expect(exhausted).toBe(expected);
      return budget.lastErrors(100).length;
    }
  }
  throw new Error(`the default budget never ended on ${expected}`);
}

describe('docs/architecture.md, "Error budget and breaker"', () => {
  it('explains both guards with the defaults the code runs on, and names this test', async () => {
    const doc = readFileSync(
      new URL('../../../docs/architecture.md', import.meta.url),
      'utf8',
    );
    const section = /^## Error budget and breaker\n([\s\S]*?)(?=^## )/mu.exec(
      doc,
    )?.[1];
    if (section === undefined)
      throw new Error('docs/architecture.md has no "Error budget and breaker"');
    const text = section.replaceAll(/\s+/gu, ' ');

    const maxErrors = budgetLimit('max_errors');
    const inARow = budgetLimit('max_consecutive_errors');
    expect(budgetLimit('repeated_failure')).toBe(2);
    expect(text).toContain(
      `after ${String(maxErrors)} error outcomes, ${String(inARow)} in a row, or the same tool, arguments and code failing twice`,
    );

    // The breaker's minimum, observed: a tool that always fails, called until its circuit opens.
    registry = new ToolRegistry();
    registry.register(() => ToolResponse.error('API_ERROR', '502'), {
      name: 'down',
      description: 'Always fails',
    });
    let calls = 0;
    while (
      registry.health().find((entry) => entry.name === 'down')?.state !==
        'open' &&
      calls < 100
    ) {
      await registry.call('down', '{}');
      calls += 1;
    }
    expect(text).toContain(`at least ${String(calls)} calls in the last 60 s`);
    expect(text).toContain(
      `${String(inARow)} consecutive failures end the run first, and ${String(inARow)} calls are under the breaker's minimum of ${String(calls)}`,
    );
    for (const fact of [
      'AgentOptions.errorBudget',
      "stopReason: 'error_budget'",
      'CIRCUIT_OPEN',
      'Denials and cancellations count for neither',
    ])
      expect(text, fact).toContain(fact);

    const named = /`(packages\/core\/src\/[\w-]+\.test\.ts)`/u.exec(text)?.[1];
    expect(named).toBe('packages/core/src/budget-and-breaker.test.ts');
    expect(
      existsSync(new URL(`../../../${named ?? ''}`, import.meta.url)),
    ).toBe(true);
  });
});
