import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  Usage,
} from '@openai/agents';
import { beforeAll, expect, it } from 'vitest';
import {
  circuitCalls,
  runAdapterConformance,
  scenarioCalls,
  scenarioRegistry,
  throwingToolCallAndSignal,
} from '../../ai-sdk/src/__fixtures__/adapter-conformance.ts';
import { toOpenAIAgentsTools } from './to-open-ai-agents-tools.ts';

beforeAll(() => {
  // No trace export: the test talks to no server.
  setTracingDisabled(true);
});

type Output = ModelResponse['output'];

/** An Agents SDK `Model` that answers from a script and records every request. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  readonly #turns: Output[];

  constructor(turns: Output[]) {
    this.#turns = turns;
  }

  getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const output = this.#turns.shift();
    if (output === undefined) throw new Error('the script has no more turns');
    return Promise.resolve({ usage: new Usage(), output });
  }

  // eslint-disable-next-line require-yield -- the scenario runs without streaming
  async *getStreamedResponse(): AsyncIterable<never> {
    await Promise.resolve();
    throw new Error('not used');
  }
}

function callsTurn(
  calls: readonly { id: string; name: string; input: unknown }[],
): Output {
  return calls.map((call) => ({
    type: 'function_call' as const,
    callId: call.id,
    name: call.name,
    arguments: JSON.stringify(call.input),
    status: 'completed' as const,
  }));
}

const doneTurn: Output = [
  {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text: 'done' }],
  },
];

interface ResultItem {
  type: string;
  callId: string;
  output: string | { type: string; text?: string };
}

function toolResultsOf(request: ModelRequest | undefined): Map<string, string> {
  const items = Array.isArray(request?.input) ? request.input : [];
  return new Map(
    (items as unknown as ResultItem[])
      .filter((item) => item.type === 'function_call_result')
      .map((item) => [
        item.callId,
        typeof item.output === 'string'
          ? item.output
          : (item.output.text ?? ''),
      ]),
  );
}

runAdapterConformance({
  name: 'toOpenAIAgentsTools inside run()',
  // The runner may reorder results; each is matched by its call id.
  keepsOrder: false,
  async twoStepRun(registry) {
    const model = new ScriptedModel([callsTurn(scenarioCalls), doneTurn]);
    const agent = new Agent({
      name: 'probe',
      model,
      // The scenario calls the open circuit on purpose, to see its [CIRCUIT_OPEN] text.
      tools: toOpenAIAgentsTools(registry, { hideOpenCircuits: false }),
    });
    const result = await run(agent, 'Try every outcome.');
    expect(result.finalOutput).toBe('done');
    expect(model.requests).toHaveLength(2);
    return [...toolResultsOf(model.requests[1]).entries()].map(
      ([id, text]) => [id, { text }] as const,
    );
  },
  async callOne(registry, name, { callId, signal }) {
    const tool = toOpenAIAgentsTools(registry).find(
      (candidate) => candidate.name === name,
    );
    const output: unknown = await tool?.invoke(undefined as never, '{}', {
      toolCall: { type: 'function_call', callId, name, arguments: '{}' },
      signal,
    });
    return { text: String(output) };
  },
  async toolsPerRequest(registry) {
    const model = new ScriptedModel([callsTurn(circuitCalls), doneTurn]);
    const agent = new Agent({
      name: 'circuit',
      model,
      tools: toOpenAIAgentsTools(registry),
    });
    const result = await run(agent, 'Try it.');
    expect(result.finalOutput).toBe('done');
    return model.requests.map((request) =>
      request.tools.map((tool) => tool.name).sort(),
    );
  },
  async rejectApproval(
    registry,
    needsApproval,
    calls = [{ id: 'c1', name: 'probe', input: { outcome: 'success' } }],
  ) {
    const model = new ScriptedModel([callsTurn(calls), doneTurn]);
    const agent = new Agent({
      name: 'probe',
      model,
      tools: toOpenAIAgentsTools(registry, { needsApproval }),
    });
    const first = await run(agent, 'Try it.');
    expect(first.interruptions).toHaveLength(1);
    const [interruption] = first.interruptions;
    if (interruption === undefined) throw new Error('no interruption');
    first.state.reject(interruption);
    const second = await run(agent, first.state);
    expect(second.finalOutput).toBe('done');
  },
});

it("answers with Candor's text when the runner's details object throws on every read", async () => {
  const { registry, ends } = await scenarioRegistry();
  const probe = toOpenAIAgentsTools(registry).find(
    (candidate) => candidate.name === 'probe',
  );
  const output: unknown = await probe?.invoke(
    undefined as never,
    JSON.stringify({ outcome: 'API_ERROR' }),
    throwingToolCallAndSignal,
  );
  expect(String(output)).toContain('API_ERROR');
  expect(ends).toHaveLength(1);
  registry.shutdown();
});

it('hides an open circuit: a model that calls it anyway is told so with toolNotFoundBehavior, else the runner raises', async () => {
  const { registry } = await scenarioRegistry();
  const openCall = callsTurn([{ id: 'x', name: 'flaky', input: {} }]);
  const agent = (model: ScriptedModel) =>
    new Agent({ name: 'a', model, tools: toOpenAIAgentsTools(registry) });
  const told = new ScriptedModel([openCall, doneTurn]);
  const result = await run(agent(told), 'Try it.', {
    toolNotFoundBehavior: 'return_error_to_model',
  });
  expect(result.finalOutput).toBe('done');
  expect(told.requests[0]?.tools.map((tool) => tool.name)).toEqual(['probe']);
  expect(toolResultsOf(told.requests[1]).get('x')).toMatch(/flaky/);
  await expect(
    run(agent(new ScriptedModel([openCall, doneTurn])), 'Try it.'),
  ).rejects.toThrow(/Tool flaky not found/);
  registry.shutdown();
});
