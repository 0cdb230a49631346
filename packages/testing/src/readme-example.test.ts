import { expect, it } from 'vitest';
import { LlmTestServer } from './index.ts';

interface ChatMessage {
  role: string;
  content: string | null;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

interface ChatCompletion {
  choices: { message: ChatMessage; finish_reason: string }[];
}

it('recovers when the weather tool fails once', async () => {
  // 1. Script the model: ask for the tool, retry it after a retryable failure, then answer.
  const server = new LlmTestServer();
  const weather = server.conversation('weather', (c) => {
    c.step('ask')
      .whenUser(/weather/)
      .callsTools([
        { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } },
      ]);
    c.step('retry')
      .whenToolResult('get_weather', 'call_1', 'error')
      .whenLatestJson('$.error.retryable', true)
      .callsTools([
        { id: 'call_2', name: 'get_weather', args: { city: 'Paris' } },
      ]);
    c.step('answer')
      .whenToolResult('get_weather', 'call_2', 'ok')
      .responds('It is sunny in Paris.')
      .complete();
  });
  const { url, close } = await server.start();

  // 2. The agent under test: a minimal tool loop. Its tool fails once, then works.
  let toolRuns = 0;
  const getWeather = (): string => {
    toolRuns += 1;
    return toolRuns === 1
      ? JSON.stringify({
          error: { code: 'timeout', message: 'upstream slow', retryable: true },
        })
      : JSON.stringify({ forecast: 'sunny' });
  };
  const messages: ChatMessage[] = [
    { role: 'user', content: 'What is the weather in Paris?' },
  ];
  for (;;) {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer test-key',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ model: 'gpt-test', messages }),
    });
    const completion = (await response.json()) as ChatCompletion;
    const choice = completion.choices[0];
    if (choice === undefined) {
      throw new Error(`unexpected response ${response.status}`);
    }
    messages.push(choice.message);
    if (choice.finish_reason !== 'tool_calls') {
      break;
    }
    for (const call of choice.message.tool_calls ?? []) {
      messages.push({
        role: 'tool',
        tool_call_id: call.id,
        content: getWeather(),
      });
    }
  }

  // 3. Assert on the outcome and on the wire.
  expect(messages.at(-1)?.content).toBe('It is sunny in Paris.');
  expect(toolRuns).toBe(2);
  expect(weather.completed).toBe(true);
  expect(server.journal.map((attempt) => attempt.step)).toEqual([
    'ask',
    'retry',
    'answer',
  ]);
  server.assertNoUnmatched();
  await close();
});
