import { LlmTestServer } from '@candor/testing';
import { describe, expect, it, onTestFinished } from 'vitest';
import { calculatorRegistry } from '../calculator-registry.case.ts';
import { Agent } from '../../agent.ts';
import { type ChatMessage } from '../../chat-model.ts';
import { openaiResponses } from './openai-responses.ts';

/** A strict server (the default) scripted with a reasoning model's two-step tool loop. */
async function reasoningServer(): Promise<{
  server: LlmTestServer;
  url: string;
}> {
  const server = new LlmTestServer();
  server.conversation('add', (c) => {
    c.step('ask')
      .whenUser('12 + 7')
      .thinks([
        {
          type: 'thinking',
          thinking: 'Add them with calc.',
          signature: 'enc-reasoning-AAAA-1',
        },
      ])
      .reasoningTokens(64)
      .callsTools([{ id: 'call_1', name: 'calc', args: { a: 12, b: 7 } }]);
    c.step('answer')
      .whenToolResult('calc', 'call_1', 'ok')
      .responds('It is 19.')
      .complete();
  });
  const started = await server.start();
  onTestFinished(started.close);
  return { server, url: `${started.url}/v1` };
}

function journalBodies(server: LlmTestServer): Record<string, unknown>[] {
  return server.journal.map((entry) => entry.body as Record<string, unknown>);
}

describe('openaiResponses against LlmTestServer in strict mode', () => {
  it('runs a two-step tool loop with a reasoning item, its encrypted content and id in the next input', async () => {
    const { server, url } = await reasoningServer();
    const result = await new Agent({
      model: openaiResponses({
        baseURL: url,
        apiKey: 'test-key',
        model: 'gpt-test',
      }),
      registry: calculatorRegistry(),
    }).run('What is 12 + 7?');
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('It is 19.');
    expect(result.usage.reasoningTokens).toBe(64);
    server.assertNoUnmatched();
    const second = journalBodies(server)[1];
    const input = second?.['input'] as Record<string, unknown>[];
    const reasoningAt = input.findIndex((item) => item['type'] === 'reasoning');
    expect(input[reasoningAt]).toMatchObject({
      id: expect.stringMatching(/^rs_/) as unknown,
      encrypted_content: 'enc-reasoning-AAAA-1',
      summary: [{ type: 'summary_text', text: 'Add them with calc.' }],
    });
    expect(input[reasoningAt + 1]).toMatchObject({
      type: 'function_call',
      id: expect.stringMatching(/^fc_/) as unknown,
      call_id: 'call_1',
    });
  });

  it("answers a client that drops the reasoning item but keeps the call id with OpenAI's 400", async () => {
    const { server, url } = await reasoningServer();
    await new Agent({
      model: openaiResponses({
        baseURL: url,
        apiKey: 'test-key',
        model: 'gpt-test',
      }),
      registry: calculatorRegistry(),
    }).run('What is 12 + 7?');
    const second = journalBodies(server)[1] ?? {};
    const input = second['input'] as Record<string, unknown>[];
    const response = await fetch(`${url}/responses`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: 'Bearer test-key',
      },
      body: JSON.stringify({
        ...second,
        input: input.filter((item) => item['type'] !== 'reasoning'),
      }),
    });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(
      /^Item 'fc_\S+' of type 'function_call' was provided without its required 'reasoning' item: 'rs_\S+'\.$/,
    );
  });

  it('resumes a conversation saved as JSON in a fresh agent, the strict server accepting its reasoning', async () => {
    const { server, url } = await reasoningServer();
    server.conversation('again', (c) => {
      c.step('more').whenUser('doubled').responds('38.').complete();
    });
    const first = calculatorRegistry();
    const done = await new Agent({
      model: openaiResponses({
        baseURL: url,
        apiKey: 'test-key',
        model: 'gpt-test',
      }),
      registry: first,
    }).run('What is 12 + 7?');
    first.shutdown();
    const restored = JSON.parse(JSON.stringify(done.messages)) as ChatMessage[];
    const resumed = await new Agent({
      model: openaiResponses({
        baseURL: url,
        apiKey: 'test-key',
        model: 'gpt-test',
      }),
      registry: calculatorRegistry(),
    }).run([...restored, { role: 'user', content: 'And doubled?' }]);
    expect(resumed.stopReason).toBe('completed');
    expect(resumed.text).toBe('38.');
    const third = journalBodies(server)[2];
    expect(JSON.stringify(third?.['input'])).toContain('enc-reasoning-AAAA-1');
  });
});
