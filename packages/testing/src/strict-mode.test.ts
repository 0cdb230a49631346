import { describe, expect, it } from 'vitest';
import { useStart } from './__fixtures__/serve.ts';
import {
  anthropicChat,
  anthropicHeaders,
  openAiChat,
  post,
} from './__fixtures__/wire-client.ts';
import { LlmTestServer } from './llm-test-server.ts';
import { toolFaultFixtures } from './tool-fault-fixtures.ts';

const start = useStart();

const openAiCall = {
  role: 'assistant',
  content: null,
  tool_calls: [
    {
      id: 'call_1',
      type: 'function',
      function: { name: 'f', arguments: '{}' },
    },
    {
      id: 'call_2',
      type: 'function',
      function: { name: 'g', arguments: '{}' },
    },
  ],
};

const anthropicCall = {
  role: 'assistant',
  content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }],
};

describe('strict mode (the default)', () => {
  it('answers an OpenAI tool call with no tool result with OpenAI’s 400', async () => {
    const server = new LlmTestServer();
    server.conversation('c', (c) => {
      c.step('any').responds('never');
    });
    const url = await start(server);
    const response = await post(
      `${url}/v1/chat/completions`,
      openAiChat([
        { role: 'user', content: 'go' },
        openAiCall,
        ...toolFaultFixtures.openAiMessages([
          toolFaultFixtures.ok('call_1', { fine: true }),
          toolFaultFixtures.omittedResult('call_2'),
        ]),
      ]),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: {
        message:
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2",
        type: 'invalid_request_error',
        param: 'messages',
        code: null,
      },
    });
    expect(server.journal[0]).toMatchObject({
      disposition: 'rejected',
      reason: expect.stringMatching(/^strict-tool-history/) as string,
    });
  });

  it('answers an orphan OpenAI tool message with OpenAI’s 400', async () => {
    const server = new LlmTestServer();
    const url = await start(server);
    const response = await post(
      `${url}/v1/chat/completions`,
      openAiChat([
        { role: 'user', content: 'go' },
        { role: 'tool', tool_call_id: 'call_9', content: 'x' },
      ]),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        message: expect.stringContaining(
          "messages with role 'tool' must be a response",
        ) as string,
        param: 'messages.[1].role',
      },
    });
  });

  it('answers a missing and an orphan Anthropic tool_result with Anthropic’s 400s', async () => {
    const server = new LlmTestServer();
    const url = await start(server);
    const missing = await post(
      `${url}/v1/messages`,
      anthropicChat([
        { role: 'user', content: 'go' },
        anthropicCall,
        { role: 'user', content: 'and?' },
      ]),
      { headers: anthropicHeaders },
    );
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: expect.stringContaining(
          'messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1',
        ) as string,
      },
    });
    const orphan = await post(
      `${url}/v1/messages`,
      anthropicChat([
        { role: 'user', content: 'go' },
        anthropicCall,
        toolFaultFixtures.anthropicMessage([
          toolFaultFixtures.ok('toolu_1', 'fine'),
          toolFaultFixtures.ok('toolu_9', 'stray'),
        ]),
      ]),
      { headers: anthropicHeaders },
    );
    expect(orphan.status).toBe(400);
    expect(await orphan.json()).toMatchObject({
      error: {
        message: expect.stringContaining(
          'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_9',
        ) as string,
      },
    });
  });
});

describe('lenient mode', () => {
  it('lets a missing tool result through to a whenToolResult(…, "missing") step', async () => {
    const server = new LlmTestServer({ strict: false });
    server.conversation('c', (c) => {
      c.step('missing')
        .whenToolResult('g', 'call_2', 'missing')
        .responds('No result for g.');
    });
    const url = await start(server);
    const response = await post(
      `${url}/v1/chat/completions`,
      openAiChat([
        { role: 'user', content: 'go' },
        openAiCall,
        ...toolFaultFixtures.openAiMessages([
          toolFaultFixtures.ok('call_1', 'fine'),
          toolFaultFixtures.omittedResult('call_2'),
        ]),
      ]),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      choices: [{ message: { content: 'No result for g.' } }],
    });
  });
});
