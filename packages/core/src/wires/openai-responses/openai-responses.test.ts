import { describe, expect, it } from 'vitest';
import { calculatorRegistry } from '../calculator-registry.case.ts';
import { Agent } from '../../agent.ts';
import { type ChatMessage } from '../../chat-model.ts';
import { drain, serve } from './loopback-responses-server.case.ts';
import { openaiResponses } from './openai-responses.ts';

// What the captures in __fixtures__ carry, as the next request must send it back.
const REASONING_ID = 'rs_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const CALL_ITEM_ID = 'fc_0a1b2c3d4e5f60718293a4b5c6d7e8fa';
const CALL_ID = 'call_AB6AaRZ1FYZB2RwS6A5vbdqn';
const PARTIAL = 'gAAAAABpPDIU-partial-encrypted-content-from-output_item.added';
const FULL = 'gAAAAABpPDIV-complete-encrypted-content-from-output_item.done==';
const SUMMARY = [
  { type: 'summary_text', text: "**Adding the numbers**\n\nI'll call calc." },
];

const replayable = {
  id: REASONING_ID,
  encrypted_content: FULL,
  summary: SUMMARY,
};
const replayedReasoning = {
  type: 'reasoning',
  id: REASONING_ID,
  encrypted_content: FULL,
  summary: SUMMARY,
};
const replayedCall = {
  type: 'function_call',
  id: CALL_ITEM_ID,
  call_id: CALL_ID,
  name: 'calc',
  arguments: '{"a":12,"b":7}',
};

function model(
  url: string,
  extra: Partial<Parameters<typeof openaiResponses>[0]> = {},
) {
  return openaiResponses({
    baseURL: url,
    apiKey: 'sk-test-key-123456',
    model: 'gpt-5-mini',
    ...extra,
  });
}

describe('openaiResponses: a tool loop with a reasoning item', () => {
  it('sends the reasoning item from output_item.done directly before its function_call on the next request', async () => {
    const { url, requests } = await serve([
      { fixture: 'reasoning-then-call.sse' },
      { fixture: 'text.sse' },
    ]);
    const result = await new Agent({
      model: model(url, { reasoning: { effort: 'low', summary: 'auto' } }),
      registry: calculatorRegistry(),
      instructions: 'Use the calculator.',
    }).run('What is 12 + 7?');
    expect(result.stopReason).toBe('completed');
    expect(result.text).toBe('12 + 7 = 19.');
    expect(requests).toHaveLength(2);

    const first = requests[0];
    expect(first?.url).toBe('/v1/responses');
    expect(first?.headers['authorization']).toBe('Bearer sk-test-key-123456');
    expect(first?.body).toMatchObject({
      model: 'gpt-5-mini',
      instructions: 'Use the calculator.',
      input: [{ role: 'user', content: 'What is 12 + 7?' }],
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low', summary: 'auto' },
      stream: true,
      tools: [
        {
          type: 'function',
          name: 'calc',
          description: 'Adds two numbers',
          strict: false,
          parameters: expect.objectContaining({ type: 'object' }) as unknown,
        },
      ],
    });

    // Reasoning item, then the call it produced, then the result by call_id.
    expect(requests[1]?.body.input).toEqual([
      { role: 'user', content: 'What is 12 + 7?' },
      replayedReasoning,
      replayedCall,
      { type: 'function_call_output', call_id: CALL_ID, output: '19' },
    ]);
    // The partial encrypted content of output_item.added goes nowhere.
    expect(JSON.stringify(requests[1]?.body)).not.toContain(PARTIAL);
  });

  it('reports usage with reasoning tokens inside output tokens, and the response id and model', async () => {
    const { url } = await serve([{ fixture: 'reasoning-then-call.sse' }]);
    const events = [];
    for await (const event of model(url).stream({
      messages: [{ role: 'user', content: 'What is 12 + 7?' }],
      tools: [],
    }))
      events.push(event);
    expect(events).toEqual([
      { type: 'reasoning-delta', text: '**Adding the numbers**' },
      { type: 'reasoning-delta', text: "\n\nI'll call calc." },
      {
        type: 'reasoning-end',
        providerData: {
          openai: {
            id: REASONING_ID,
            encrypted_content: FULL,
            summary: SUMMARY,
          },
        },
      },
      {
        type: 'tool-call',
        call: {
          id: CALL_ID,
          // function_call_arguments.done had no name: it is output_item.added's.
          name: 'calc',
          arguments: '{"a":12,"b":7}',
          providerData: { openai: { id: CALL_ITEM_ID } },
        },
      },
      {
        type: 'finish',
        finishReason: 'tool_calls',
        usage: { inputTokens: 134, outputTokens: 58, reasoningTokens: 30 },
        response: { id: 'resp_01reasoning', model: 'gpt-5-mini-2025-08-07' },
      },
    ]);
  });

  it('resumes a conversation saved as JSON in a fresh agent with the reasoning item intact', async () => {
    const first = await serve([
      { fixture: 'reasoning-then-call.sse' },
      { fixture: 'text.sse' },
    ]);
    const firstRegistry = calculatorRegistry();
    const done = await new Agent({
      model: model(first.url),
      registry: firstRegistry,
    }).run('What is 12 + 7?');
    expect(done.stopReason).toBe('completed');
    firstRegistry.shutdown();

    const saved = JSON.stringify(done.messages);
    const restored = JSON.parse(saved) as ChatMessage[];
    const second = await serve([{ fixture: 'text.sse' }]);
    const resumed = await new Agent({
      model: model(second.url),
      registry: calculatorRegistry(),
    }).run([...restored, { role: 'user', content: 'And doubled?' }]);
    expect(resumed.stopReason).toBe('completed');
    expect(second.requests[0]?.body.input).toEqual([
      { role: 'user', content: 'What is 12 + 7?' },
      replayedReasoning,
      replayedCall,
      { type: 'function_call_output', call_id: CALL_ID, output: '19' },
      // A turn without reasoning goes back without item ids (none is needed with store: false),
      // as an EasyInputMessage.
      { role: 'assistant', content: '12 + 7 = 19.' },
      { role: 'user', content: 'And doubled?' },
    ]);
  });

  it("never sends another wire's provider data, and drops ids when the turn's reasoning cannot go back", async () => {
    const { url, requests } = await serve([
      { fixture: 'text.sse' },
      { fixture: 'text.sse' },
    ]);
    const foreign: ChatMessage[] = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [
          {
            id: 'call_1',
            name: 'calc',
            arguments: '{"a":1,"b":2}',
            providerData: { google: { thoughtSignature: 'c2ln' } },
          },
        ],
        parts: [
          {
            type: 'reasoning',
            text: 'thinking',
            providerData: { anthropic: { signature: 'sig' } },
          },
          {
            type: 'tool-call',
            call: {
              id: 'call_1',
              name: 'calc',
              arguments: '{"a":1,"b":2}',
              providerData: { google: { thoughtSignature: 'c2ln' } },
            },
          },
        ],
      },
      {
        role: 'tool',
        results: [
          { callId: 'call_1', toolName: 'calc', content: '3', isError: false },
        ],
      },
    ];
    const wire = model(url);
    await drain(wire.stream({ messages: foreign, tools: [] }));
    expect(requests[0]?.body.input).toEqual([
      { role: 'user', content: 'hi' },
      {
        type: 'function_call',
        call_id: 'call_1',
        name: 'calc',
        arguments: '{"a":1,"b":2}',
      },
      { type: 'function_call_output', call_id: 'call_1', output: '3' },
    ]);

    // One of this wire's reasoning parts without encrypted content (saved with store: true,
    // say) cannot go back; the call it produced, sent by its fc_ id alone, would be a 400. So
    // the turn goes back without reasoning and without ids.
    const lost: ChatMessage[] = [
      { role: 'user', content: 'hi' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [],
        parts: [
          { type: 'reasoning', text: '', providerData: { openai: replayable } },
          {
            type: 'tool-call',
            call: {
              id: CALL_ID,
              name: 'calc',
              arguments: '{}',
              providerData: { openai: { id: CALL_ITEM_ID } },
            },
          },
          {
            type: 'reasoning',
            text: '',
            redacted: true,
            providerData: { openai: { id: 'rs_2', summary: [] } },
          },
          {
            type: 'tool-call',
            call: {
              id: 'call_2',
              name: 'calc',
              arguments: '{}',
              providerData: { openai: { id: 'fc_2' } },
            },
          },
        ],
      },
    ];
    await drain(wire.stream({ messages: lost, tools: [] }));
    expect(requests[1]?.body.input).toEqual([
      { role: 'user', content: 'hi' },
      {
        type: 'function_call',
        call_id: CALL_ID,
        name: 'calc',
        arguments: '{}',
      },
      {
        type: 'function_call',
        call_id: 'call_2',
        name: 'calc',
        arguments: '{}',
      },
    ]);
  });
});
