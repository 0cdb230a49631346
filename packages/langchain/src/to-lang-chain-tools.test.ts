import { ToolRegistry } from '@candor/registry';
import { defineTool, outcomeOf, ToolResponse } from '@candor/tools';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { Command, MemorySaver } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import {
  type AnyAgentMiddleware,
  createAgent,
  createMiddleware,
  toolRetryMiddleware,
} from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AdapterUnderTest,
  circuitCalls,
  type ModelSaw,
  outcomes,
  runAdapterConformance,
  scenarioCalls,
  scenarioRegistry,
  throwingToolCallAndSignal,
} from '../../ai-sdk/src/__fixtures__/adapter-conformance.ts';
// The private workspace package's entry, by path: this package's tests predate the devDependency.
import { everyTrapThrows } from '@candor/hostile-fixtures';
import {
  callOptionsIn,
  toLangChainTools,
  toolMessageFor,
  withoutOpenCircuits,
} from './to-lang-chain-tools.ts';

let registry: ToolRegistry | undefined;
afterEach(() => {
  registry?.shutdown();
});

const toolCalls = scenarioCalls.map((call) => ({
  id: call.id,
  name: call.name,
  args: call.input,
}));

function sawOf(message: ToolMessage): ModelSaw {
  return {
    text: typeof message.content === 'string' ? message.content : '',
    error: message.status === 'error',
  };
}

/** The ToolMessages as the model sees them, after checking the artifact of each. */
function sent(
  messages: readonly unknown[],
  ends: Awaited<ReturnType<typeof scenarioRegistry>>['ends'],
): (readonly [string, ModelSaw])[] {
  const tools = messages.filter((message) => ToolMessage.isInstance(message));
  const byId = new Map(tools.map((message) => [message.tool_call_id, message]));
  // What the adapter adds beyond the model's view: the artifact, for code.
  for (const end of ends) {
    expect(byId.get(end.callId)?.artifact).toMatchObject({
      outcome: outcomeOf(end.response),
      response: end.response,
      ...(end.response.status === 'error'
        ? { code: end.response.errorInfo.code }
        : {}),
    });
  }
  expect(byId.get(`call_${outcomes.indexOf('data')}`)?.artifact).toMatchObject({
    outcome: 'success',
    data: { answer: 42 },
  });
  return tools.map((message) => [message.tool_call_id, sawOf(message)]);
}

const callOne: AdapterUnderTest['callOne'] = async (
  registry,
  name,
  { callId, signal },
) => {
  const tool = toLangChainTools(registry).find(
    (candidate) => candidate.name === name,
  );
  const message: unknown = await tool?.invoke(
    { id: callId, name, args: {}, type: 'tool_call' },
    { signal },
  );
  if (!ToolMessage.isInstance(message)) throw new Error('not a ToolMessage');
  expect(message.tool_call_id).toBe(callId);
  return sawOf(message);
};

runAdapterConformance({
  name: 'toLangChainTools in createAgent',
  keepsOrder: true,
  validatesArguments: true,
  async rejectApproval(
    registry,
    needsApproval,
    calls = [{ id: 'c1', name: 'probe', input: { outcome: 'success' } }],
  ) {
    const model = fakeModel()
      .respondWithTools(
        calls.map((call) => ({
          id: call.id,
          name: call.name,
          args: call.input as Record<string, unknown>,
        })),
      )
      .respond(new AIMessage('done'));
    const agent = createAgent({
      model,
      tools: toLangChainTools(registry, { needsApproval }),
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: 'approval' } };
    const first = await agent.invoke(
      { messages: [{ role: 'user', content: 'Try it.' }] },
      config,
    );
    // The graph paused at the approval; nobody grants it.
    expect(first.__interrupt__).toHaveLength(1);
    expect(first.__interrupt__?.[0]?.value).toMatchObject({
      type: 'candor_tool_approval',
      toolCallId: calls[0]?.id,
    });
    // What a person is shown: the censored arguments.
    expect(JSON.stringify(first.__interrupt__)).not.toContain('hunter2');
    const second = await agent.invoke(
      new Command({ resume: { approved: false, reason: 'not now' } }),
      config,
    );
    expect(second.messages.at(-1)?.content).toBe('done');
    const denial = second.messages.find(
      (message) =>
        ToolMessage.isInstance(message) &&
        message.tool_call_id === calls[0]?.id,
    );
    expect(denial?.content).toMatch(/^\[DENIED\] This call was NOT executed/);
  },
  async twoStepRun(registry) {
    const model = fakeModel()
      .respondWithTools(toolCalls)
      .respond(new AIMessage('done'));
    const ends: Parameters<typeof sent>[1] = [];
    registry.on('tool:end', (event) => ends.push(event));
    const agent = createAgent({ model, tools: toLangChainTools(registry) });
    const result = await agent.invoke({
      messages: [{ role: 'user', content: 'Try every outcome.' }],
    });
    expect(result.messages.at(-1)?.content).toBe('done');
    expect(model.callCount).toBe(2);
    return sent(model.calls[1]?.messages ?? [], ends);
  },
  callOne,
  async toolsPerRequest(registry) {
    const model = fakeModel()
      .respondWithTools(
        circuitCalls.map((call) => ({
          id: call.id,
          name: call.name,
          args: call.input,
        })),
      )
      .respond(new AIMessage('done'));
    // What createAgent binds before each model call is what the model is offered.
    const bound: string[][] = [];
    const bindTools = model.bindTools.bind(model);
    model.bindTools = (tools) => {
      bound.push(tools.map((tool) => tool.name).sort());
      return bindTools(tools);
    };
    // The middleware of the README.
    const hideOpenCircuits = createMiddleware({
      name: 'HideOpenCircuits',
      wrapModelCall: (request, handler) =>
        handler({
          ...request,
          tools: withoutOpenCircuits(registry, request.tools),
        }),
    });
    const agent = createAgent({
      model,
      tools: toLangChainTools(registry),
      middleware: [hideOpenCircuits],
    });
    const result = await agent.invoke({
      messages: [{ role: 'user', content: 'Try it.' }],
    });
    expect(result.messages.at(-1)?.content).toBe('done');
    expect(model.callCount).toBe(2);
    return bound;
  },
});

runAdapterConformance({
  name: 'toLangChainTools in a LangGraph ToolNode',
  keepsOrder: true,
  async twoStepRun(registry) {
    const ends: Parameters<typeof sent>[1] = [];
    registry.on('tool:end', (event) => ends.push(event));
    // handleToolErrors off: a throw would fail this test instead of becoming a message.
    const node = new ToolNode(toLangChainTools(registry), {
      handleToolErrors: false,
    });
    const { messages } = (await node.invoke({
      messages: [new AIMessage({ content: '', tool_calls: toolCalls })],
    })) as { messages: unknown[] };
    return sent(messages, ends);
  },
  callOne,
});

describe('toLangChainTools', () => {
  it("is never retried by LangChain's toolRetryMiddleware: a failure is a ToolMessage, not a throw", async () => {
    registry = new ToolRegistry({ breaker: false });
    let runs = 0;
    registry.register(
      defineTool({
        name: 'upstream',
        description: 'Fails upstream',
        input: z.object({}),
        run: () => {
          runs += 1;
          return ToolResponse.error('API_ERROR', 'upstream 502');
        },
      }),
    );
    const model = fakeModel()
      .respondWithTools([{ id: 'u1', name: 'upstream', args: {} }])
      .respond(new AIMessage('done'));
    const agent = createAgent({
      model,
      tools: toLangChainTools(registry),
      // Its zod 3 state schema trips exactOptionalPropertyTypes in LangChain's own types.
      middleware: [
        toolRetryMiddleware({
          maxRetries: 3,
          initialDelayMs: 0,
        }) as unknown as AnyAgentMiddleware,
      ],
    });
    const result = await agent.invoke({
      messages: [{ role: 'user', content: 'Try it.' }],
    });
    expect(runs).toBe(1);
    const message = result.messages.find((candidate) =>
      ToolMessage.isInstance(candidate),
    );
    expect(message?.status).toBe('error');
    expect(message?.content).toMatch(/^\[API_ERROR\]/);
  });

  it('answers a bare invoke (no tool call) with a ToolMessage too, never a bare string', async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    const probe = toLangChainTools(registry).find(
      (candidate) => candidate.name === 'probe',
    );
    const message: unknown = await probe?.invoke({ outcome: 'API_ERROR' });
    expect(message).toMatchObject({
      status: 'error',
      artifact: { outcome: 'error', code: 'API_ERROR' },
    });
  });

  it('leaves arguments that break the schema to LangChain, which refuses them before the call', async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    const node = new ToolNode(toLangChainTools(registry));
    const { messages } = (await node.invoke({
      messages: [
        new AIMessage({
          content: '',
          tool_calls: [{ id: 'bad', name: 'probe', args: { outcome: 5 } }],
        }),
      ],
    })) as { messages: ToolMessage[] };
    expect(messages[0]?.status).toBe('error');
    expect(scenario.ends).toEqual([]);
  });

  it("resolves to a ToolMessage when the run config's getters throw", async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    const probe = toLangChainTools(registry).find(
      (candidate) => candidate.name === 'probe',
    );
    // The function itself, as LangChain calls it with the run config.
    const message: unknown = await probe?.func(
      { outcome: 'API_ERROR' },
      undefined,
      throwingToolCallAndSignal as never,
    );
    expect(message).toBeInstanceOf(ToolMessage);
    expect(message).toMatchObject({
      status: 'error',
      artifact: { outcome: 'error', code: 'API_ERROR' },
    });
    expect(scenario.ends).toHaveLength(1);
    // No usable id: the message names the call by the id the registry gave it.
    expect((message as ToolMessage).tool_call_id).toBe(
      scenario.ends[0]?.callId,
    );
  });

  it("reads an approved call's id and signal once each, and never throws on a hostile config", () => {
    expect(callOptionsIn(throwingToolCallAndSignal)).toEqual({});
    // `instanceof` asks a Proxy for its prototype: a trap that throws there leaves the signal out.
    const { proxy, touches } = everyTrapThrows('trap down');
    expect(callOptionsIn({ toolCall: { id: 'c1' }, signal: proxy })).toEqual({
      callId: 'c1',
    });
    expect(touches()).toBe(1);
    const signal = new AbortController().signal;
    let reads = 0;
    const config = {
      get toolCall() {
        reads += 1;
        return { id: 'c2' };
      },
      signal,
    };
    expect(callOptionsIn(config)).toEqual({ callId: 'c2', signal });
    expect(reads).toBe(1);
  });

  it('keeps data that is not JSON in the artifact and says so in words', () => {
    const data = { big: 1n };
    const message = toolMessageFor(ToolResponse.success('', { data }), {
      toolName: 'probe',
      toolCallId: 'c1',
    });
    expect(message.status).toBe('success');
    expect(message.content).toMatch(/cannot|could not/);
    expect(message.artifact).toMatchObject({ data });
  });
});
