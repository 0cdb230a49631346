import { describe, expect, it } from 'vitest';
import { useServer } from './__fixtures__/serve.ts';
import { dataOf, post, readEvents } from './__fixtures__/wire-client.ts';
import { deliveryFaults } from './delivery-faults.ts';
import type { LlmTestServer } from './llm-test-server.ts';

const serve = useServer();

type Item = Record<string, unknown>;

interface ResponseBody {
  id: string;
  status: string;
  output: Item[];
  usage: {
    output_tokens: number;
    output_tokens_details: { reasoning_tokens: number };
  };
  incomplete_details: { reason: string } | null;
}

const tools = [
  {
    type: 'function',
    name: 'get_weather',
    parameters: { type: 'object', properties: {} },
    strict: false,
  },
];

function weather(server: LlmTestServer): void {
  server.conversation('weather', (c) => {
    c.step('ask')
      .whenUser('weather')
      .thinks([
        { type: 'thinking', thinking: 'Look it up.', signature: 'enc-AAAA-1' },
      ])
      .reasoningTokens(64)
      .callsTools([
        { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } },
      ]);
    c.step('answer')
      .whenToolResult('get_weather', 'call_1', 'ok')
      .responds('Sunny.')
      .complete();
  });
}

const ask = [{ role: 'user', content: 'weather in Paris?' }];
const stateless = {
  model: 'gpt-test',
  store: false,
  include: ['reasoning.encrypted_content'],
  tools,
};

async function create(url: string, body: unknown): Promise<Response> {
  return post(`${url}/v1/responses`, body);
}

async function first(url: string): Promise<ResponseBody> {
  return (await (
    await create(url, { ...stateless, input: ask })
  ).json()) as ResponseBody;
}

const output = {
  type: 'function_call_output',
  call_id: 'call_1',
  output: '{"forecast":"sunny"}',
};

async function errorOf(
  response: Response,
): Promise<{ status: number; error: Record<string, unknown> }> {
  return {
    status: response.status,
    error: ((await response.json()) as { error: Record<string, unknown> })
      .error,
  };
}

describe('OpenAI Responses wire', () => {
  it('sends encrypted content in full only in output_item.done, and a done-arguments event without the name', async () => {
    const { url } = await serve(weather);
    const events = dataOf(
      await readEvents(
        await create(url, { ...stateless, input: ask, stream: true }),
      ),
    ) as { type: string; item?: Item; name?: string }[];
    const reasoning = events
      .filter((event) => event.item?.['type'] === 'reasoning')
      .map((event) => [event.type, event.item?.['encrypted_content']]);
    expect(reasoning).toEqual([
      ['response.output_item.added', 'enc-A'],
      ['response.output_item.done', 'enc-AAAA-1'],
    ]);
    const done = events.find(
      (event) => event.type === 'response.function_call_arguments.done',
    );
    expect(done).toBeDefined();
    expect(done?.name).toBeUndefined();
  });

  it('omits encrypted content unless the request includes it', async () => {
    const { url } = await serve(weather);
    const body = (await (
      await create(url, { model: 'gpt-test', input: ask })
    ).json()) as ResponseBody;
    expect(body.output[0]).not.toHaveProperty('encrypted_content');
  });

  it('completes a stateless two-step loop when the client replays the reasoning item before its call', async () => {
    const { server, url } = await serve(weather);
    const body = await first(url);
    const response = await create(url, {
      ...stateless,
      input: [...ask, ...body.output, output],
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as ResponseBody;
    expect(answer.output).toEqual([
      {
        id: 'msg_2',
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Sunny.', annotations: [] }],
      },
    ]);
    expect(server.journal.map((attempt) => attempt.step)).toEqual([
      'ask',
      'answer',
    ]);
  });

  it('completes a stored loop through previous_response_id with only the output', async () => {
    const { url } = await serve(weather);
    const body = (await (
      await create(url, { model: 'gpt-test', input: ask, tools })
    ).json()) as ResponseBody;
    const response = await create(url, {
      model: 'gpt-test',
      previous_response_id: body.id,
      input: [output],
    });
    expect(response.status).toBe(200);
  });

  it('answers previous_response_id of a response made with store: false with a 404', async () => {
    const { url } = await serve(weather);
    const body = await first(url);
    const response = await create(url, {
      ...stateless,
      previous_response_id: body.id,
      input: [output],
    });
    expect(await errorOf(response)).toEqual({
      status: 404,
      error: {
        message: `Previous response with id '${body.id}' not found.`,
        type: 'invalid_request_error',
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      },
    });
  });

  it.each([
    [
      'drops the reasoning item before the call',
      (items: Item[]) => items.slice(1),
      400,
      {
        message:
          "Item 'fc_1_0' of type 'function_call' was provided without its required 'reasoning' item: 'rs_1_0'.",
        type: 'invalid_request_error',
        param: 'input',
        code: null,
      },
    ],
    [
      'sends the reasoning item by id alone with store: false',
      (items: Item[]) => [{ type: 'item_reference', id: 'rs_1_0' }, items[1]],
      404,
      {
        message:
          "Item with id 'rs_1_0' not found. Items are not persisted when `store` is set to false. Try again with `store` set to true, or remove this item from your input.",
        type: 'invalid_request_error',
        param: 'input',
        code: null,
      },
    ],
    [
      'drops the reasoning summary',
      (items: Item[]) => [
        { type: 'reasoning', id: 'rs_1_0', encrypted_content: 'enc-AAAA-1' },
        items[1],
      ],
      400,
      {
        message: "Missing required parameter: 'input[1].summary'.",
        type: 'invalid_request_error',
        param: 'input[1].summary',
        code: 'missing_required_parameter',
      },
    ],
    [
      'keeps the reasoning but drops the call it produced',
      (items: Item[]) => [items[0]],
      400,
      {
        message:
          "Item 'rs_1_0' of type 'reasoning' was provided without its required following item.",
        type: 'invalid_request_error',
        param: 'input',
        code: null,
      },
    ],
    [
      'takes the encrypted content from output_item.added',
      (items: Item[]) => [
        { ...items[0], encrypted_content: 'enc-A' },
        items[1],
      ],
      400,
      {
        message: 'The encrypted content enc-A could not be verified.',
        type: 'invalid_request_error',
        param: null,
        code: 'invalid_encrypted_content',
      },
    ],
  ])(
    'answers a client that %s as OpenAI does',
    async (_name, replay, status, error) => {
      const { url } = await serve(weather);
      const body = await first(url);
      const response = await create(url, {
        ...stateless,
        input: [...ask, ...replay(body.output), output],
      });
      expect(await errorOf(response)).toEqual({ status, error });
    },
  );

  it('answers a function_call_output with no matching call with OpenAI’s 400', async () => {
    const { url } = await serve(weather);
    const response = await create(url, {
      ...stateless,
      input: [...ask, { ...output, call_id: 'call_9' }],
    });
    expect(await errorOf(response)).toEqual({
      status: 400,
      error: {
        message:
          'No tool call found for function call output with call_id call_9.',
        type: 'invalid_request_error',
        param: 'input',
        code: null,
      },
    });
  });

  it('matches whenUser on a string input and whenToolResult on function_call_output', async () => {
    const { server, url } = await serve(weather, { strict: false });
    await create(url, { model: 'gpt-test', input: 'weather in Paris?' });
    await create(url, {
      model: 'gpt-test',
      input: [
        ...ask,
        {
          type: 'function_call',
          call_id: 'call_1',
          name: 'get_weather',
          arguments: '{}',
        },
        output,
      ],
    });
    expect(server.journal.map((attempt) => attempt.step)).toEqual([
      'ask',
      'answer',
    ]);
  });

  it('renders a refusal as a completed message, and a filtered answer as response.incomplete', async () => {
    const { server, url } = await serve((s) =>
      s.conversation('c', (c) => {
        c.step('no').whenUser('bomb').refuses('I can’t help with that.');
      }),
    );
    server.simulateContentFilter('forbidden', { style: 'finish_reason' });
    const refused = (await (
      await create(url, { model: 'gpt-test', input: 'bomb' })
    ).json()) as ResponseBody;
    expect(refused.status).toBe('completed');
    expect(refused.output[0]?.['content']).toEqual([
      { type: 'refusal', refusal: 'I can’t help with that.' },
    ]);
    const events = dataOf(
      await readEvents(
        await create(url, {
          model: 'gpt-test',
          input: 'forbidden',
          stream: true,
        }),
      ),
    ) as { type: string; response?: ResponseBody }[];
    expect(events.at(-1)?.type).toBe('response.incomplete');
    expect(events.at(-1)?.response?.incomplete_details).toEqual({
      reason: 'content_filter',
    });
  });

  it.each([
    [undefined, 'error'],
    ['response.failed', 'response.failed'],
  ] as const)('sends an in-stream error as %s', async (event, type) => {
    const { url } = await serve((s) =>
      s.conversation('c', (c) => {
        c.step('busy')
          .whenUser('hi')
          .deliversWith(
            deliveryFaults.inStreamError(2, {
              code: 'server_error',
              message: 'The server had an error.',
              ...(event === undefined ? {} : { event }),
            }),
          )
          .responds('never');
      }),
    );
    const events = dataOf(
      await readEvents(
        await create(url, { model: 'gpt-test', input: 'hi', stream: true }),
      ),
    ) as { type: string; code?: string; response?: { error: unknown } }[];
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      type,
    ]);
    expect(
      type === 'error' ? events[2]?.code : events[2]?.response?.error,
    ).toEqual(
      type === 'error'
        ? 'server_error'
        : { code: 'server_error', message: 'The server had an error.' },
    );
  });
});
