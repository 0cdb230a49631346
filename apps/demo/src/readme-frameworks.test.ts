import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import { fakeModel } from '@langchain/core/testing';
import {
  type Model,
  type ModelRequest,
  type ModelResponse,
  setTracingDisabled,
  Usage,
} from '@openai/agents';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registry } from './readme-example.ts';
import { askWithAISDK } from './readme-frameworks/ai-sdk.ts';
import { askWithLangChain } from './readme-frameworks/langchain.ts';
import { askWithOpenAIAgents } from './readme-frameworks/openai-agents.ts';

beforeAll(() => {
  setTracingDisabled(true);
});
afterAll(() => {
  registry.shutdown();
});

const readme = readFileSync(
  join(import.meta.dirname, '..', '..', '..', 'README.md'),
  'utf8',
);

/** The README block between `<!-- example:NAME:begin -->` and its end marker. */
function block(name: string): string | undefined {
  const start = `<!-- example:${name}:begin -->`;
  const end = `<!-- example:${name}:end -->`;
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) return undefined;
  return /```ts\n([\s\S]*?)```/.exec(readme.slice(from, to))?.[1];
}

function source(file: string): string {
  return readFileSync(
    join(import.meta.dirname, 'readme-frameworks', file),
    'utf8',
  );
}

const divideByZero = { a: 1, b: 0 };

describe('the README framework sections', () => {
  it.each(['ai-sdk', 'langchain', 'openai-agents'])(
    'the %s block is the code in src/readme-frameworks',
    (name) => {
      expect(block(name)).toBe(source(`${name}.ts`));
    },
  );

  it('AI SDK: the model reads the error with its code', async () => {
    const turn = (content: unknown[], unified: string) =>
      ({
        content,
        finishReason: { unified, raw: undefined },
        usage: {
          inputTokens: { total: 1, noCache: 1 },
          outputTokens: { total: 1, text: 1 },
        },
        warnings: [],
      }) as never;
    const model = new MockLanguageModelV3({
      doGenerate: [
        turn(
          [
            {
              type: 'tool-call',
              toolCallId: 'c1',
              toolName: 'divide',
              input: JSON.stringify(divideByZero),
            },
          ],
          'tool-calls',
        ),
        turn([{ type: 'text', text: 'It cannot be done.' }], 'stop'),
      ],
    });
    const result = await askWithAISDK(model);
    expect(result.text).toBe('It cannot be done.');
    const sent = JSON.stringify(model.doGenerateCalls[1]?.prompt);
    expect(sent).toContain('"type":"error-text"');
    expect(sent).toContain('[INVALID_PARAM]');
  });

  it('LangChain: the ToolMessage is an error with the code', async () => {
    const model = fakeModel()
      .respondWithTools([{ id: 'c1', name: 'divide', args: divideByZero }])
      .respond(new AIMessage('It cannot be done.'));
    const { messages } = await askWithLangChain(model);
    const tool = messages.find((message) => ToolMessage.isInstance(message));
    expect(tool).toMatchObject({
      status: 'error',
      artifact: { code: 'INVALID_PARAM' },
    });
    expect(messages.at(-1)?.content).toBe('It cannot be done.');
  });

  it('OpenAI Agents: the output the model reads starts with the code', async () => {
    const requests: ModelRequest[] = [];
    const turns: ModelResponse['output'][] = [
      [
        {
          type: 'function_call',
          callId: 'c1',
          name: 'divide',
          arguments: JSON.stringify(divideByZero),
          status: 'completed',
        },
      ],
      [
        {
          type: 'message',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'It cannot be done.' }],
        },
      ],
    ];
    const model: Model = {
      getResponse: (request) => {
        requests.push(request);
        return Promise.resolve({
          usage: new Usage(),
          output: turns.shift() ?? [],
        });
      },
      getStreamedResponse: () => {
        throw new Error('not used');
      },
    };
    const result = await askWithOpenAIAgents(model);
    expect(result.finalOutput).toBe('It cannot be done.');
    expect(JSON.stringify(requests[1]?.input)).toContain('[INVALID_PARAM]');
  });
});
