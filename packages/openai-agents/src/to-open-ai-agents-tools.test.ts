import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse, toolResultForModel } from '@candor/tools';
import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  Usage,
} from '@openai/agents';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  breakerWindows,
  outcomes,
  scenarioCalls,
  scenarioRegistry,
} from '../../ai-sdk/src/__fixtures__/outcome-scenario.ts';
import { toOpenAIAgentsTools } from './to-open-ai-agents-tools.ts';

beforeAll(() => {
  // No trace export: the test talks to no server.
  setTracingDisabled(true);
});

let registry: ToolRegistry | undefined;
afterEach(() => {
  registry?.shutdown();
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

describe('toOpenAIAgentsTools inside run()', () => {
  it('tells the model every outcome in the next request, through the breaker, without crashing', async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    const model = new ScriptedModel([callsTurn(scenarioCalls), doneTurn]);
    const agent = new Agent({
      name: 'probe',
      model,
      tools: toOpenAIAgentsTools(registry),
    });
    const result = await run(agent, 'Try every outcome.');
    expect(result.finalOutput).toBe('done');
    expect(model.requests).toHaveLength(2);

    const sent = toolResultsOf(model.requests[1]);
    expect([...sent.keys()].sort()).toEqual(
      scenarioCalls.map((call) => call.id).sort(),
    );
    expect(scenario.ends).toHaveLength(scenarioCalls.length);
    for (const end of scenario.ends) {
      expect(sent.get(end.callId), end.callId).toBe(
        toolResultForModel(end.response, end.toolName).content,
      );
      if (
        end.response.status === 'error' &&
        end.response.errorInfo.denied !== true
      ) {
        expect(sent.get(end.callId)).toMatch(
          new RegExp(`^\\[${end.response.errorInfo.code}\\]`),
        );
      }
    }
    expect(sent.get(`call_${outcomes.indexOf('denied')}`)).toMatch(
      /^\[DENIED\] This call was NOT executed/,
    );
    expect(sent.get('call_open')).toMatch(/^\[CIRCUIT_OPEN\]/);
    expect(sent.get(`call_${outcomes.indexOf('partial')}`)).toMatch(
      /^\[INCOMPLETE RESULT: truncated\]/,
    );
    // Every probe call past the approval gate reached the breaker; the open one was refused.
    expect(breakerWindows(registry)).toEqual({
      probe: { state: 'closed', calls: outcomes.length - 1, rejected: 0 },
      flaky: { state: 'open', calls: 3, rejected: 1 },
    });
  });

  it('stops for the SDK approval, and a rejected call never reaches the registry', async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    const asked: unknown[] = [];
    const model = new ScriptedModel([
      callsTurn([{ id: 'c1', name: 'probe', input: { outcome: 'success' } }]),
      doneTurn,
    ]);
    const agent = new Agent({
      name: 'probe',
      model,
      tools: toOpenAIAgentsTools(registry, {
        needsApproval: (name, input) => {
          asked.push([name, input]);
          return true;
        },
      }),
    });
    const first = await run(agent, 'Try it.');
    expect(asked).toEqual([['probe', { outcome: 'success' }]]);
    expect(first.interruptions).toHaveLength(1);
    const [interruption] = first.interruptions;
    if (interruption === undefined) throw new Error('no interruption');
    first.state.reject(interruption);
    const second = await run(agent, first.state);
    expect(second.finalOutput).toBe('done');
    expect(scenario.ends).toEqual([]);
  });

  it('passes the call id and the run signal into the registry', async () => {
    registry = new ToolRegistry();
    const seen: string[] = [];
    registry.on('tool:end', (event) => seen.push(event.callId));
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
    const [wait] = toOpenAIAgentsTools(registry);
    const output: unknown = await wait?.invoke(undefined as never, '{}', {
      toolCall: {
        type: 'function_call',
        callId: 'c9',
        name: 'wait',
        arguments: '{}',
      },
      signal: controller.signal,
    });
    expect(output).toMatch(/^\[EXECUTION_ERROR\]/);
    expect(seen).toEqual(['c9']);
  });
});
