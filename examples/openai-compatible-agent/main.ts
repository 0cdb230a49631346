// An agent on an OpenAI-compatible server. Offline by default: @candor/testing's scripted server
// speaks the Chat Completions wire on 127.0.0.1. Set CANDOR_BASE_URL to use a real server, e.g.
// Ollama: CANDOR_BASE_URL=http://127.0.0.1:11434/v1 CANDOR_MODEL_NAME=llama3.2 npm start
import { Agent, openaiCompatible } from '@candor/core';
import { ToolRegistry } from '@candor/registry';
import { LlmTestServer } from '@candor/testing';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';

const files: Record<string, string> = { 'notes.md': 'Buy milk.' };
const registry = new ToolRegistry().register(
  defineTool({
    name: 'read_file',
    description: 'Reads a file by its name',
    input: z.object({ path: z.string() }),
    run: ({ path }) => {
      const text = files[path];
      return text === undefined
        ? ToolResponse.error(
            'NOT_FOUND',
            `No such file: ${path} (try notes.md)`,
          )
        : ToolResponse.success(text);
    },
  }),
);

const realUrl = process.env['CANDOR_BASE_URL'];
let close = async (): Promise<void> => {};
let baseURL = realUrl;
if (baseURL === undefined) {
  // The scripted model: it asks for the wrong file, reads NOT_FOUND, and tries the right one.
  const server = new LlmTestServer();
  server.conversation('notes', (c) => {
    c.step('read')
      .whenUser('notes')
      .callsTools([
        { id: 'call_1', name: 'read_file', args: { path: 'notes.txt' } },
      ]);
    c.step('other file')
      .whenLatestCode('NOT_FOUND')
      .callsTools([
        { id: 'call_2', name: 'read_file', args: { path: 'notes.md' } },
      ]);
    c.step('answer')
      .whenLatestText('Buy milk.')
      .responds('Your notes say: buy milk.')
      .complete();
  });
  const started = await server.start();
  baseURL = `${started.url}/v1`;
  close = started.close;
}

const model = openaiCompatible({
  baseURL,
  model:
    process.env['CANDOR_MODEL_NAME'] ??
    (realUrl === undefined ? 'scripted' : 'llama3.2'),
  apiKey: process.env['OPENAI_API_KEY'] ?? 'not-needed',
});
const agent = new Agent({ model, registry, maxSteps: 6 });
try {
  for await (const event of agent.stream(
    'What do my notes say? They are in notes.txt.',
  )) {
    if (event.type === 'tool-end') {
      console.log(`tool ${event.toolName} → ${event.outcome}`);
    }
    if (event.type === 'done') {
      console.log(`answer: ${event.result.text}`);
      console.log(`stop: ${event.result.stopReason}`);
    }
  }
} finally {
  registry.shutdown();
  await close();
}
