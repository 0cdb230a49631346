// Shared by the ESM and CommonJS framework consumers: each passes the modules it loaded its own
// way (import or require). One failing call (b = 0) through each adapter, as its framework runs
// it; prints one JSON line with what each framework would tell the model.
async function report(modules) {
  const { ai, langchain, openaiAgents, agents, registryModule, tools, zod } =
    modules;
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
  registry.shutdown();
  return {
    node: process.versions.node,
    aiSdk,
    langchain: {
      status: message.status,
      code: message.artifact.code,
      content: message.content,
      toolCallId: message.tool_call_id,
    },
    openaiAgents: agentsOutput,
  };
}

module.exports = { report };
