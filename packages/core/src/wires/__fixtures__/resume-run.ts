// A fresh process that resumes a saved conversation: `node --import tsx resume-run.ts <wire>
// <baseURL> <saved.json>`. It prints the run's stop reason and text as one JSON line.
import { readFileSync } from 'node:fs';
import { ToolRegistry } from '@candor/registry';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';
import { Agent, type ChatMessage, type ChatModel } from '../../index.ts';
import { resumeModel } from './resume-models.ts';

const [wire = '', baseURL = '', file = ''] = process.argv.slice(2);
const model: ChatModel = resumeModel(wire, baseURL);
const registry = new ToolRegistry();
registry.register(
  defineTool({
    name: 'get_weather',
    description: 'The weather in a city',
    input: z.object({ city: z.string() }),
    run: ({ city }) => ToolResponse.success(`sunny in ${city}`),
  }),
);
const messages = JSON.parse(readFileSync(file, 'utf8')) as ChatMessage[];
const result = await new Agent({ model, registry }).run(messages);
registry.shutdown();
process.stdout.write(
  `${JSON.stringify({ stopReason: result.stopReason, text: result.text })}\n`,
);
