// Shared by the ESM and CommonJS framework consumers: each passes the modules it loaded its own
// way (import or require). One failing call (b = 0) through each adapter, as its framework runs
// it; prints one JSON line with what each framework would tell the model.

// The other direction: the AI SDK's own mock model (the newest spec its `ai/test` has: V4 in
// ai 7, V3 in ai 6) as a Candor ChatModel, asked for the turn after the failed call. What the
// mock received is what a provider would send the model.
async function fromLanguageModelTurn({ ai, aiTest, registry, tools, input }) {
  const response = await registry.call('divide', input);
  const { content, isError } = tools.toolResultForModel(response, 'divide');
  const Mock = aiTest.MockLanguageModelV4 ?? aiTest.MockLanguageModelV3;
  const mock = new Mock({
    doStream: async () => ({
      stream: aiTest.convertArrayToReadableStream([
        { type: 'text-start', id: 't' },
        { type: 'text-delta', id: 't', delta: 'b must not be zero' },
        { type: 'text-end', id: 't' },
        {
          type: 'finish',
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 12, noCache: 12 },
            outputTokens: { total: 3, text: 3 },
          },
        },
      ]),
    }),
  });
  const events = [];
  for await (const event of ai.fromLanguageModel(mock).stream({
    messages: [
      { role: 'user', content: 'What is 1 / 0?' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          { id: 'f1', name: 'divide', arguments: JSON.stringify(input) },
        ],
      },
      {
        role: 'tool',
        results: [{ callId: 'f1', toolName: 'divide', content, isError }],
      },
    ],
    tools: [],
  }))
    events.push(event);
  const sent = (mock.doStreamCalls[0]?.prompt ?? []).find(
    (message) => message.role === 'tool',
  )?.content[0];
  return {
    specificationVersion: mock.specificationVersion,
    sent:
      sent === undefined
        ? null
        : { toolCallId: sent.toolCallId, ...sent.output },
    events,
  };
}

async function report(modules) {
  const {
    ai,
    aiTest,
    langchain,
    openaiAgents,
    agents,
    registryModule,
    tools,
    zod,
  } = modules;
  const registry = new registryModule.ToolRegistry();
  registry.register(
    tools.defineTool({
      name: 'divide',
      description: 'Divides a by b',
      input: zod.z.object({ a: zod.z.number(), b: zod.z.number() }),
      run: ({ a, b }) =>
        b === 0
          ? tools.ToolResponse.error('INVALID_PARAM', 'b must not be zero')
          : tools.ToolResponse.success(String(a / b)),
    }),
  );
  const input = { a: 1, b: 0 };

  const divide = ai.toAISDKTools(registry)['divide'];
  const output = await divide.execute(input, {
    toolCallId: 'a1',
    messages: [],
  });
  const aiSdk = await divide.toModelOutput({ toolCallId: 'a1', input, output });

  const [lcTool] = langchain.toLangChainTools(registry);
  const message = await lcTool.invoke({
    id: 'l1',
    name: 'divide',
    args: input,
    type: 'tool_call',
  });

  const [agentsTool] = openaiAgents.toOpenAIAgentsTools(registry);
  const agentsOutput = await agentsTool.invoke(
    new agents.RunContext(),
    JSON.stringify(input),
    {
      toolCall: {
        type: 'function_call',
        callId: 'o1',
        name: 'divide',
        arguments: JSON.stringify(input),
      },
    },
  );
  const aiSdkModel = await fromLanguageModelTurn({
    ai,
    aiTest,
    registry,
    tools,
    input,
  });
  registry.shutdown();
  return {
    node: process.versions.node,
    aiSdk,
    aiSdkModel,
    langchain: {
      status: message.status,
      code: message.artifact.code,
      content: message.content,
      toolCallId: message.tool_call_id,
    },
    openaiAgents: agentsOutput,
  };
}

module.exports = { report, fromLanguageModelTurn };
