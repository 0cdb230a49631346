import { ToolRegistry } from '@candor/registry';
import {
  defineTool,
  outcomeOf,
  ToolResponse,
  toolResultForModel,
} from '@candor/tools';
import { z } from 'zod';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import {
  breakerWindows,
  outcomes,
  scenarioCalls,
  scenarioRegistry,
} from './__fixtures__/outcome-scenario.ts';
import { modelOutputFor, toAISDKTools } from './index.ts';

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};

function turn(
  content: unknown[],
  unified: 'stop' | 'tool-calls',
): Awaited<ReturnType<MockLanguageModelV3['doGenerate']>> {
  return {
    content,
    finishReason: { unified, raw: undefined },
    usage,
    warnings: [],
  } as unknown as Awaited<ReturnType<MockLanguageModelV3['doGenerate']>>;
}

function twoStepModel(): MockLanguageModelV3 {
  const turns = [
    turn(
      scenarioCalls.map((call) => ({
        type: 'tool-call',
        toolCallId: call.id,
        toolName: call.name,
        input: JSON.stringify(call.input),
      })),
      'tool-calls',
    ),
    turn([{ type: 'text', text: 'done' }], 'stop'),
  ];
  let next = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const result = turns[next];
      next += 1;
      if (result === undefined) throw new Error('the script has two turns');
      return result;
    },
  });
}

interface ToolResultPart {
  type: string;
  toolCallId: string;
  output: { type: string; value?: unknown; reason?: string };
}

function toolResultsOf(prompt: readonly { role: string; content: unknown }[]) {
  return prompt
    .filter((message) => message.role === 'tool')
    .flatMap((message) => message.content as ToolResultPart[])
    .filter((part) => part.type === 'tool-result');
}

let registry: ToolRegistry | undefined;
afterEach(() => {
  registry?.shutdown();
});

describe('toAISDKTools inside generateText', () => {
  it('tells the model every outcome in the next request, through the breaker, without crashing', async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    const model = twoStepModel();
    const result = await generateText({
      model,
      tools: toAISDKTools(registry),
      stopWhen: stepCountIs(3),
      prompt: 'Try every outcome.',
    });
    expect(result.text).toBe('done');
    expect(model.doGenerateCalls).toHaveLength(2);
    // The SDK never saw a throw: no tool-error part in any step.
    expect(
      result.steps.flatMap((step) =>
        step.content.filter((part) => part.type === 'tool-error'),
      ),
    ).toEqual([]);

    const sent = toolResultsOf(model.doGenerateCalls[1]?.prompt ?? []);
    expect(sent.map((part) => part.toolCallId)).toEqual(
      scenarioCalls.map((call) => call.id),
    );
    const byId = new Map(sent.map((part) => [part.toolCallId, part.output]));
    const ends = new Map(scenario.ends.map((end) => [end.callId, end]));
    for (const call of scenarioCalls) {
      const end = ends.get(call.id);
      expect(end, call.id).toBeDefined();
      if (end === undefined) continue;
      const { content } = toolResultForModel(end.response, call.name);
      const output = byId.get(call.id);
      const outcome = outcomeOf(end.response);
      if (outcome === 'denied') {
        expect(output).toEqual({ type: 'execution-denied', reason: content });
        expect(content).toMatch(/^\[DENIED\] This call was NOT executed/);
      } else if (outcome === 'error') {
        const code =
          end.response.status === 'error' ? end.response.errorInfo.code : '';
        expect(output).toEqual({ type: 'error-text', value: content });
        expect(content.startsWith(`[${code}]`)).toBe(true);
      } else if ('outcome' in call.input && call.input.outcome === 'data') {
        expect(output).toEqual({ type: 'json', value: { answer: 42 } });
      } else {
        expect(output).toEqual({ type: 'text', value: content });
      }
    }
    expect(byId.get('call_open')).toEqual({
      type: 'error-text',
      value: expect.stringMatching(/^\[CIRCUIT_OPEN\]/) as unknown,
    });
    expect(byId.get(`call_${outcomes.indexOf('partial')}`)?.value).toMatch(
      /^\[INCOMPLETE RESULT: truncated\]/,
    );
    // Every probe call past the approval gate reached the breaker; the open one was refused.
    expect(breakerWindows(registry)).toEqual({
      probe: { state: 'closed', calls: outcomes.length - 1, rejected: 0 },
      flaky: { state: 'open', calls: 3, rejected: 1 },
    });
  });

  it('passes the SDK abort signal into the call', async () => {
    registry = new ToolRegistry();
    const controller = new AbortController();
    registry.register(
      defineTool({
        name: 'wait',
        description: 'Waits until it is aborted',
        input: z.object({}),
        run: (_input, { signal }) =>
          new Promise<ToolResponse>((resolve) => {
            signal.addEventListener(
              'abort',
              () => {
                resolve(ToolResponse.success('stopped'));
              },
              { once: true },
            );
            controller.abort();
          }),
      }),
    );
    const execute = toAISDKTools(registry)['wait']?.execute;
    const response: unknown = await execute?.(
      {},
      { toolCallId: 'c1', messages: [], abortSignal: controller.signal },
    );
    expect(response).toMatchObject({
      status: 'error',
      errorInfo: { code: 'EXECUTION_ERROR', cancelled: true },
    });
  });

  it('refuses an unknown tool name in `only`', async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    expect(() => toAISDKTools(scenario.registry, { only: ['nope'] })).toThrow(
      'toAISDKTools: no registered tool named "nope"',
    );
    expect(Object.keys(toAISDKTools(registry, { only: ['probe'] }))).toEqual([
      'probe',
    ]);
  });

  it('shows data that is not JSON in words, never as a broken JSON value', () => {
    const output = modelOutputFor(
      { status: 'success', text: '', data: { big: 1n } } as never,
      'probe',
    );
    expect(output.type).toBe('text');
  });
});
