import { describe, expect, it } from 'vitest';
import { useServer } from './__fixtures__/serve.ts';
import {
  anthropicChat,
  anthropicHeaders,
  dataOf,
  post,
  readEvents,
} from './__fixtures__/wire-client.ts';

const serve = useServer();

const hi = [{ role: 'user', content: 'hi there' }];
const headers = { headers: anthropicHeaders };

describe('Anthropic Messages wire', () => {
  it('answers a non-streaming request with a message body', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('a')
          .whenUser('hi')
          .responds('Checking.')
          .callsTools([
            { id: 'toolu_1', name: 'get_weather', args: { city: 'Paris' } },
          ]);
      }),
    );
    const response = await post(
      `${url}/v1/messages`,
      anthropicChat(hi),
      headers,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('request-id')).toBe('req_1');
    expect(await response.json()).toMatchObject({
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [
        { type: 'text', text: 'Checking.' },
        {
          type: 'tool_use',
          id: 'toolu_1',
          name: 'get_weather',
          input: { city: 'Paris' },
        },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
    });
  });

  it('streams all seven event types, ping included, in the documented order', async () => {
    const { url } = await serve(
      (server) =>
        server.conversation('c', (c) => {
          c.step('a')
            .whenUser('hi')
            .responds('Sure thing')
            .callsTools([
              { id: 'toolu_1', name: 'get_weather', args: { city: 'Zürich' } },
            ]);
        }),
      { argumentSliceLength: 5 },
    );
    const events = await readEvents(
      await post(
        `${url}/v1/messages`,
        anthropicChat(hi, { stream: true }),
        headers,
      ),
    );
    const names = events.map((event) => event.event);
    expect(new Set(names)).toEqual(
      new Set([
        'message_start',
        'ping',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]),
    );
    expect(names.slice(0, 3)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
    ]);
    expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
    // Every event's data carries its own type.
    for (const event of events) {
      expect(JSON.parse(event.data)).toMatchObject({ type: event.event });
    }
    const data = dataOf(events) as {
      type: string;
      index?: number;
      delta?: {
        type?: string;
        partial_json?: string;
        text?: string;
        stop_reason?: string;
      };
      content_block?: unknown;
    }[];
    const jsonDeltas = data
      .filter((event) => event.delta?.type === 'input_json_delta')
      .map((event) => event.delta?.partial_json ?? '');
    expect(jsonDeltas[0]).toBe('');
    expect(jsonDeltas.length).toBeGreaterThan(3);
    expect(JSON.parse(jsonDeltas.join(''))).toEqual({ city: 'Zürich' });
    expect(
      data.find(
        (event) => event.type === 'content_block_start' && event.index === 1,
      ),
    ).toMatchObject({
      content_block: {
        type: 'tool_use',
        id: 'toolu_1',
        name: 'get_weather',
        input: {},
      },
    });
    const text = data
      .filter((event) => event.delta?.type === 'text_delta')
      .map((event) => event.delta?.text ?? '')
      .join('');
    expect(text).toBe('Sure thing');
    expect(
      data.find((event) => event.type === 'message_delta')?.delta?.stop_reason,
    ).toBe('tool_use');
  });

  it('ends a text answer with stop_reason end_turn', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('a').responds('Done.');
      }),
    );
    const data = dataOf(
      await readEvents(
        await post(
          `${url}/v1/messages`,
          anthropicChat(hi, { stream: true }),
          headers,
        ),
      ),
    );
    expect(data).toContainEqual(
      expect.objectContaining({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
      }),
    );
  });

  it('renders scripted failures with Anthropic error bodies', async () => {
    const { url } = await serve((server) =>
      server.conversation('c', (c) => {
        c.step('a')
          .fails(529, 'overloaded_error', 'Overloaded', {
            headers: { 'x-should-retry': 'true' },
          })
          .fails(429, 'rate_limit_error', 'Slow down', {
            headers: { 'retry-after': '3' },
          })
          .responds('ok');
      }),
    );
    const first = await post(`${url}/v1/messages`, anthropicChat(hi), headers);
    expect(first.status).toBe(529);
    expect(first.headers.get('x-should-retry')).toBe('true');
    expect(first.headers.get('request-id')).toBe('req_1');
    expect(await first.json()).toEqual({
      type: 'error',
      error: { type: 'overloaded_error', message: 'Overloaded' },
      request_id: 'req_1',
    });
    const second = await post(`${url}/v1/messages`, anthropicChat(hi), headers);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('3');
    expect(
      (await post(`${url}/v1/messages`, anthropicChat(hi), headers)).status,
    ).toBe(200);
  });

  it('rejects missing auth, a missing anthropic-version and bad bodies in Anthropic shape', async () => {
    const { url } = await serve(() => undefined);
    const noKey = await post(`${url}/v1/messages`, anthropicChat(hi), {
      headers: {
        'anthropic-version': '2023-06-01',
        'content-type': 'application/json',
      },
    });
    expect(noKey.status).toBe(401);
    expect(await noKey.json()).toMatchObject({
      type: 'error',
      error: {
        type: 'authentication_error',
        message: 'x-api-key header is required',
      },
    });
    const noVersion = await post(`${url}/v1/messages`, anthropicChat(hi), {
      headers: { 'x-api-key': 'k', 'content-type': 'application/json' },
    });
    expect(noVersion.status).toBe(400);
    expect(await noVersion.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        message: 'anthropic-version: header is required',
      },
    });
    const malformed = await post(`${url}/v1/messages`, '{"model"', headers);
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
    });
    const noMaxTokens = await post(
      `${url}/v1/messages`,
      { model: 'claude-test', messages: hi },
      headers,
    );
    expect(await noMaxTokens.json()).toMatchObject({
      error: { message: 'max_tokens: Field required' },
    });
    const wrongPath = await post(
      `${url}/v1/messages/batches`,
      anthropicChat(hi),
      headers,
    );
    expect(wrongPath.status).toBe(404);
    expect(await wrongPath.json()).toMatchObject({
      type: 'error',
      error: { type: 'not_found_error' },
    });
  });
});
