import { ToolRegistry } from '@candor/registry';
import {
  defineTool,
  outcomeOf,
  ToolResponse,
  toolResultForModel,
} from '@candor/tools';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  breakerWindows,
  outcomes,
  scenarioCalls,
  scenarioRegistry,
} from '../../ai-sdk/src/__fixtures__/outcome-scenario.ts';
import { toLangChainTools, toolMessageFor } from './to-lang-chain-tools.ts';

let registry: ToolRegistry | undefined;
afterEach(() => {
  registry?.shutdown();
});

const toolCalls = scenarioCalls.map((call) => ({
  id: call.id,
  name: call.name,
  args: call.input,
}));

/** Checks each ToolMessage against what the registry answered for that call. */
function expectTruthful(
  messages: readonly unknown[],
  ends: Awaited<ReturnType<typeof scenarioRegistry>>['ends'],
): void {
  const sent = messages.filter((message) => ToolMessage.isInstance(message));
  expect(sent.map((message) => message.tool_call_id)).toEqual(
    scenarioCalls.map((call) => call.id),
  );
  const byId = new Map(sent.map((message) => [message.tool_call_id, message]));
  for (const end of ends) {
    const message = byId.get(end.callId);
    expect(message, end.callId).toBeDefined();
    if (message === undefined) continue;
    const { content, isError } = toolResultForModel(end.response, end.toolName);
    expect(message.content).toBe(content);
    expect(message.status).toBe(isError ? 'error' : 'success');
    expect(message.artifact).toMatchObject({
      outcome: outcomeOf(end.response),
      response: end.response,
    });
    if (end.response.status === 'error') {
      const code = end.response.errorInfo.code;
      expect(message.artifact).toMatchObject({ code });
      expect(
        content.startsWith(`[${code}]`) || outcomeOf(end.response) === 'denied',
      ).toBe(true);
    }
  }
  const denied = byId.get(`call_${outcomes.indexOf('denied')}`);
  // Like toolResultForModel's isError: a refusal is not the tool failing, so no provider marks
  // it as an error; the words and the artifact say it did not run.
  expect(denied?.status).toBe('success');
  expect(denied?.content).toMatch(/^\[DENIED\] This call was NOT executed/);
  expect(denied?.artifact).toMatchObject({
    outcome: 'denied',
    code: 'ACCESS_DENIED',
  });
  const open = byId.get('call_open');
  expect(open?.status).toBe('error');
  expect(open?.content).toMatch(/^\[CIRCUIT_OPEN\]/);
  expect(byId.get(`call_${outcomes.indexOf('partial')}`)).toMatchObject({
    status: 'success',
    content: expect.stringMatching(
      /^\[INCOMPLETE RESULT: truncated\]/,
    ) as unknown,
  });
  expect(byId.get(`call_${outcomes.indexOf('data')}`)?.artifact).toMatchObject({
    outcome: 'success',
    data: { answer: 42 },
  });
}

describe('toLangChainTools', () => {
  it('in createAgent: the next model request carries every status, code and denial', async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    const model = fakeModel()
      .respondWithTools(toolCalls)
      .respond(new AIMessage('done'));
    const agent = createAgent({ model, tools: toLangChainTools(registry) });
    const result = await agent.invoke({
      messages: [{ role: 'user', content: 'Try every outcome.' }],
    });
    expect(result.messages.at(-1)?.content).toBe('done');
    expect(model.callCount).toBe(2);
    expectTruthful(model.calls[1]?.messages ?? [], scenario.ends);
    expect(scenario.ends).toHaveLength(scenarioCalls.length);
    // Every probe call past the approval gate reached the breaker; the open one was refused.
    expect(breakerWindows(registry)).toEqual({
      probe: { state: 'closed', calls: outcomes.length - 1, rejected: 0 },
      flaky: { state: 'open', calls: 3, rejected: 1 },
    });
  });

  it('in a LangGraph ToolNode: one truthful ToolMessage per call, nothing thrown', async () => {
    const scenario = await scenarioRegistry();
    registry = scenario.registry;
    // handleToolErrors off: a throw would fail this test instead of becoming a message.
    const node = new ToolNode(toLangChainTools(registry), {
      handleToolErrors: false,
    });
    const { messages } = (await node.invoke({
      messages: [new AIMessage({ content: '', tool_calls: toolCalls })],
    })) as { messages: unknown[] };
    expectTruthful(messages, scenario.ends);
  });

  it('passes the run signal into the call and answers with a cancelled error', async () => {
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
    const [wait] = toLangChainTools(registry);
    const message: unknown = await wait?.invoke(
      { id: 'c1', name: 'wait', args: {}, type: 'tool_call' },
      { signal: controller.signal },
    );
    expect(message).toBeInstanceOf(ToolMessage);
    expect(message).toMatchObject({
      tool_call_id: 'c1',
      status: 'error',
      artifact: { code: 'EXECUTION_ERROR' },
    });
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
