import { ToolRegistry } from '@candor/registry';
import {
  defineTool,
  outcomeOf,
  ToolResponse,
  toolResultForModel,
  typedResultForModel,
} from '@candor/tools';
import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  circuitCalls,
  type ModelSaw,
  runAdapterConformance,
  scenarioCalls,
  scenarioRegistry,
} from './__fixtures__/adapter-conformance.ts';
import { hideOpenCircuits, toAISDKTools } from './index.ts';

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

/** A mock that asks for these tool calls, then answers "done". */
function twoStepModel(
  calls: readonly {
    id: string;
    name: string;
    input: unknown;
  }[] = scenarioCalls,
): MockLanguageModelV3 {
  const turns = [
    turn(
      calls.map((call) => ({
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

function sawOf(output: ToolResultPart['output']): ModelSaw {
  const text =
    output.type === 'execution-denied'
      ? (output.reason ?? '')
      : output.type === 'json'
        ? JSON.stringify(output.value)
        : String(output.value);
  return { text, error: output.type === 'error-text' };
}

runAdapterConformance({
  name: 'toAISDKTools inside generateText',
  keepsOrder: true,
  async twoStepRun(registry) {
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
    return toolResultsOf(model.doGenerateCalls[1]?.prompt ?? []).map(
      (part) => [part.toolCallId, sawOf(part.output)] as const,
    );
  },
  async callOne(registry, name, { callId, signal }) {
    const tool = toAISDKTools(registry)[name];
    const output: unknown = await tool?.execute?.(
      {},
      { toolCallId: callId, messages: [], abortSignal: signal },
    );
    const modelOutput: unknown = await tool?.toModelOutput?.({
      toolCallId: callId,
      input: {},
      output,
    });
    return sawOf(modelOutput as ToolResultPart['output']);
  },
  async toolsPerRequest(registry) {
    const model = twoStepModel(circuitCalls);
    const tools = toAISDKTools(registry);
    const result = await generateText({
      model,
      tools,
      prepareStep: hideOpenCircuits(registry, tools),
      stopWhen: stepCountIs(3),
      prompt: 'Try it.',
    });
    expect(result.text).toBe('done');
    return model.doGenerateCalls.map((call) =>
      (call.tools ?? []).map((tool) => tool.name).sort(),
    );
  },
  async rejectApproval(
    registry,
    needsApproval,
    calls = [{ id: 'c1', name: 'probe', input: { outcome: 'success' } }],
  ) {
    const model = new MockLanguageModelV3({
      doGenerate: turn(
        calls.map((call) => ({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: call.name,
          input: JSON.stringify(call.input),
        })),
        'tool-calls',
      ),
    });
    const result = await generateText({
      model,
      tools: toAISDKTools(registry, { needsApproval }),
      stopWhen: stepCountIs(3),
      prompt: 'Try it.',
    });
    // The run stops at the approval request; nobody grants it.
    expect(result.content.map((part) => part.type)).toContain(
      'tool-approval-request',
    );
  },
});

describe('toAISDKTools inside generateText', () => {
  it("gives the model each outcome in the SDK's own output types", async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    const model = twoStepModel();
    await generateText({
      model,
      tools: toAISDKTools(registry),
      stopWhen: stepCountIs(3),
      prompt: 'Try every outcome.',
    });
    const sent = toolResultsOf(model.doGenerateCalls[1]?.prompt ?? []);
    const byId = new Map(sent.map((part) => [part.toolCallId, part.output]));
    for (const end of scenario.ends) {
      const { content } = toolResultForModel(end.response, end.toolName);
      const output = byId.get(end.callId);
      const outcome = outcomeOf(end.response);
      if (outcome === 'denied') {
        expect(output).toEqual({ type: 'execution-denied', reason: content });
      } else if (outcome === 'error') {
        expect(output).toEqual({ type: 'error-text', value: content });
      } else if (end.response.text === '' && 'data' in end.response) {
        expect(output).toEqual({ type: 'json', value: { answer: 42 } });
      } else {
        expect(output).toEqual({ type: 'text', value: content });
      }
    }
    expect(
      scenarioCalls.filter(
        (call) => 'outcome' in call.input && call.input.outcome === 'data',
      ),
    ).toHaveLength(1);
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

  it('lets arguments that break the schema reach the registry, so the model sees [INVALID_PARAM]', async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    const model = twoStepModel([
      { id: 'bad', name: 'probe', input: { outcome: 5 } },
    ]);
    const result = await generateText({
      model,
      tools: toAISDKTools(registry),
      stopWhen: stepCountIs(3),
      prompt: 'Call it wrong.',
    });
    expect(result.text).toBe('done');
    const [part] = toolResultsOf(model.doGenerateCalls[1]?.prompt ?? []);
    expect(part?.output.type).toBe('error-text');
    expect(String(part?.output.value)).toMatch(/^\[INVALID_PARAM\]/);
    // The registry, not the SDK, refused it: its tool:end saw the call.
    expect(scenario.ends.map((end) => end.toolName)).toEqual(['probe']);
  });

  it('shows data that is not JSON in words, never as a broken JSON value', () => {
    const output = typedResultForModel(
      { status: 'success', text: '', data: { big: 1n } } as never,
      'probe',
    );
    expect(output.type).toBe('text');
  });
});

describe('toAISDKTools approval', () => {
  it("asks about the value the registry's coercion gives, and never runs a call unapproved that nobody was asked about", async () => {
    registry = new ToolRegistry();
    let ran = 0;
    // Refuses the first two readings of `n`, takes the third: the check of the approval question
    // and the check of execute refuse it, the registry's own validation then takes it.
    let readings = 0;
    registry.register(
      defineTool({
        name: 'count',
        description: 'Takes a number, coerced',
        input: z.object({ n: z.coerce.number() }),
        run: () => {
          ran += 1;
          return ToolResponse.success('ran');
        },
      }),
    );
    registry.register(
      defineTool({
        name: 'fickle',
        description: 'Changes its mind',
        input: z.object({ n: z.number().refine(() => ++readings > 2) }),
        run: () => {
          ran += 1;
          return ToolResponse.success('ran');
        },
      }),
    );
    const tools = toAISDKTools(registry, { needsApproval: true });
    const question = (name: string) =>
      tools[name]?.needsApproval as (input: unknown) => Promise<boolean>;
    // The JSON Schema says number; the registry coerces the string, so the person is asked.
    expect(await question('count')({ n: '5' })).toBe(true);
    expect(await question('count')({ n: 'five' })).toBe(false);
    expect(await question('fickle')({ n: 1 })).toBe(false);
    // Nobody was asked, and the registry took it after all: refused, not run.
    const output = (await tools['fickle']?.execute?.(
      { n: 1 },
      { toolCallId: 'c', messages: [] },
    )) as ToolResponse;
    expect(outcomeOf(output)).toBe('denied');
    expect(readings).toBe(3);
    expect(ran).toBe(0);
    // A tool nobody wanted approval for runs as the registry takes it; the function is asked
    // only with the arguments the registry validated and censored.
    const asked: unknown[] = [];
    const free = toAISDKTools(registry, {
      needsApproval: (name, input) => {
        asked.push([name, input]);
        return false;
      },
    })['count'];
    const freeQuestion = free?.needsApproval as (
      input: unknown,
    ) => Promise<boolean>;
    expect(await freeQuestion({ n: '5', token: 'abc' })).toBe(false);
    const freeOutput = (await free?.execute?.(
      { n: '5', token: 'abc' },
      { toolCallId: 'd', messages: [] },
    )) as ToolResponse;
    expect(outcomeOf(freeOutput)).toBe('success');
    expect(ran).toBe(1);
    // Validated: coerced to a number, and the unknown key stripped by the schema.
    expect(asked).toEqual([['count', { n: 5 }]]);
  });
});
