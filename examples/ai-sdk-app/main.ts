// An AI SDK app whose tools are a Candor registry, through toAISDKTools. Offline by default: the
// scripted server from @candor/testing speaks the OpenAI wire. For a real server (Ollama here):
// CANDOR_BASE_URL=http://127.0.0.1:11434/v1 CANDOR_MODEL_NAME=llama3.2 npm start
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { toAISDKTools } from '@candor/ai-sdk';
import { ToolRegistry } from '@candor/registry';
import { LlmTestServer } from '@candor/testing';
import { defineTool, outcomeOf, ToolResponse } from '@candor/tools';
import { generateText, stepCountIs } from 'ai';
import { z } from 'zod';

const registry = new ToolRegistry().register(
  defineTool({
    name: 'weather',
    description: 'The weather in a city',
    input: z.object({ city: z.string().min(1) }),
    run: ({ city }) =>
      city === 'Oslo'
        ? ToolResponse.success('Oslo: 4 °C, light rain', {
            data: { celsius: 4 },
          })
        : ToolResponse.error('NOT_FOUND', `No station for ${city}`),
  }),
);

let baseURL = process.env['CANDOR_BASE_URL'];
let close = async (): Promise<void> => {};
if (baseURL === undefined) {
  const server = new LlmTestServer();
  server.conversation('weather', (c) => {
    c.step('ask')
      .whenUser('weather')
      .callsTools([
        { id: 'call_1', name: 'weather', args: { city: 'Atlantis' } },
      ]);
    c.step('retry')
      .whenLatestCode('NOT_FOUND')
      .callsTools([{ id: 'call_2', name: 'weather', args: { city: 'Oslo' } }]);
    c.step('answer')
      .whenLatestText('4 °C')
      .responds('It is 4 °C and raining in Oslo.')
      .complete();
  });
  const started = await server.start();
  baseURL = `${started.url}/v1`;
  close = started.close;
}

const provider = createOpenAICompatible({
  name: 'local',
  baseURL,
  apiKey: process.env['OPENAI_API_KEY'] ?? 'not-needed',
});
try {
  const result = await generateText({
    model: provider(process.env['CANDOR_MODEL_NAME'] ?? 'scripted'),
    tools: toAISDKTools(registry),
    stopWhen: stepCountIs(5),
    prompt: 'What is the weather in Atlantis, or else in Oslo?',
  });
  for (const step of result.steps) {
    for (const output of step.toolResults) {
      // Each execute returns the registry's ToolResponse; the model read toModelOutput's text.
      const response = output.output as ToolResponse;
      console.log(
        `tool ${output.toolName} ${JSON.stringify(output.input)} → ${outcomeOf(response)}`,
      );
    }
  }
  console.log(`answer: ${result.text}`);
} finally {
  registry.shutdown();
  await close();
}
