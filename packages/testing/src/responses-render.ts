import type { Frame, RenderOptions } from './provider-protocol.ts';
import {
  itemKey,
  isObject,
  responseKey,
  expandInput,
  type JsonObject,
  type SentItem,
} from './responses-items.ts';
import {
  answerTokensOf,
  argumentText,
  estimateTokens,
  reasoningTokensOf,
  sliceText,
  textPieces,
  type ScriptedReply,
} from './scripted-reply.ts';

// The Responses streaming events, as typed in openai-node (`ResponseStreamEvent`) and documented
// at https://platform.openai.com/docs/api-reference/responses-streaming. A reasoning item's
// `encrypted_content` is only sent when the request includes "reasoning.encrypted_content"
// (https://platform.openai.com/docs/guides/reasoning#encrypted-reasoning-items), and is
// complete only in `response.output_item.done`.

// A fixed timestamp keeps rendered bytes identical from run to run.
const createdAt = 1_700_000_000;

function includesEncrypted(body: unknown): boolean {
  return (
    isObject(body) &&
    Array.isArray(body['include']) &&
    body['include'].includes('reasoning.encrypted_content')
  );
}

/** The output items of a reply, in order: reasoning, the message, the function calls. */
function outputItems(
  reply: ScriptedReply,
  options: RenderOptions,
): JsonObject[] {
  const { sequence } = options;
  const encrypted = includesEncrypted(options.request.body);
  const items: JsonObject[] = (reply.reasoning ?? []).map((block, index) => ({
    id: `rs_${sequence}_${index}`,
    type: 'reasoning',
    summary:
      block.type === 'thinking' && block.thinking !== ''
        ? [{ type: 'summary_text', text: block.thinking }]
        : [],
    ...(encrypted
      ? {
          encrypted_content:
            block.type === 'thinking' ? block.signature : block.data,
        }
      : {}),
  }));
  const text = reply.text ?? '';
  if (reply.refusal !== undefined || text !== '') {
    items.push({
      id: `msg_${sequence}`,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [
        ...(text === ''
          ? []
          : [{ type: 'output_text', text, annotations: [] }]),
        ...(reply.refusal === undefined
          ? []
          : [{ type: 'refusal', refusal: reply.refusal }]),
      ],
    });
  }
  reply.toolCalls.forEach((call, index) => {
    items.push({
      id: `fc_${sequence}_${index}`,
      type: 'function_call',
      status: 'completed',
      call_id: call.id,
      name: call.name,
      arguments: argumentText(call),
    });
  });
  return items;
}

/** Remembers every item and the response, for strict checks and `previous_response_id`. */
function remember(items: readonly JsonObject[], options: RenderOptions): void {
  const body = isObject(options.request.body) ? options.request.body : {};
  const stored = body['store'] !== false;
  items.forEach((item, index) => {
    const previous = items[index - 1];
    const next = items[index + 1];
    const entry: SentItem = {
      item,
      stored,
      ...(item['type'] === 'reasoning' && next !== undefined
        ? { next: String(next['id']) }
        : {}),
      ...(item['type'] === 'function_call' && previous?.['type'] === 'reasoning'
        ? { reasoning: String(previous['id']) }
        : {}),
    };
    options.sent.remember(itemKey(String(item['id'])), entry);
  });
  options.sent.remember(responseKey(`resp_${options.sequence}`), {
    stored,
    items: [...expandInput(body, options.sent), ...items],
  });
}

function status(reply: ScriptedReply): 'completed' | 'incomplete' {
  // A refusal is a completed answer; a filtered one is incomplete.
  return reply.finish === 'content_filter' && reply.refusal === undefined
    ? 'incomplete'
    : 'completed';
}

function responseObject(
  reply: ScriptedReply,
  options: RenderOptions,
  output: readonly JsonObject[] | 'in-progress',
): JsonObject {
  const final = output !== 'in-progress';
  const body = isObject(options.request.body) ? options.request.body : {};
  const input = estimateTokens(
    options.request.history
      .map((event) => ('text' in event ? event.text : ''))
      .join(' '),
  );
  const reasoning = reasoningTokensOf(reply);
  // output_tokens include the reasoning tokens.
  const outputTokens = answerTokensOf(reply) + reasoning;
  const state = final ? status(reply) : 'in_progress';
  return {
    id: `resp_${options.sequence}`,
    object: 'response',
    created_at: createdAt,
    status: state,
    error: null,
    incomplete_details:
      state === 'incomplete' ? { reason: 'content_filter' } : null,
    instructions: body['instructions'] ?? null,
    model: options.request.model,
    output: final ? output : [],
    parallel_tool_calls: true,
    previous_response_id: body['previous_response_id'] ?? null,
    store: body['store'] !== false,
    tool_choice: 'auto',
    tools: Array.isArray(body['tools']) ? body['tools'] : [],
    usage: final
      ? {
          input_tokens: input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: outputTokens,
          output_tokens_details: { reasoning_tokens: reasoning },
          total_tokens: input + outputTokens,
        }
      : null,
  };
}

/** Renders the SSE events of one item at `index`. */
function itemEvents(
  item: JsonObject,
  index: number,
  options: RenderOptions,
): [string, JsonObject][] {
  const id = String(item['id']);
  const at = { item_id: id, output_index: index };
  const events: [string, JsonObject][] = [];
  switch (item['type']) {
    case 'reasoning': {
      const encrypted = item['encrypted_content'];
      // The added event's encrypted content is incomplete; only `done` carries all of it.
      events.push([
        'response.output_item.added',
        {
          output_index: index,
          item: {
            ...item,
            summary: [],
            ...(typeof encrypted === 'string'
              ? { encrypted_content: encrypted.slice(0, encrypted.length >> 1) }
              : {}),
          },
        },
      ]);
      const summary = item['summary'] as { text: string }[];
      summary.forEach(({ text }, summaryIndex) => {
        const part = { ...at, summary_index: summaryIndex };
        events.push([
          'response.reasoning_summary_part.added',
          { ...part, part: { type: 'summary_text', text: '' } },
        ]);
        for (const delta of textPieces(text)) {
          events.push([
            'response.reasoning_summary_text.delta',
            { ...part, delta },
          ]);
        }
        events.push([
          'response.reasoning_summary_text.done',
          { ...part, text },
        ]);
        events.push([
          'response.reasoning_summary_part.done',
          { ...part, part: { type: 'summary_text', text } },
        ]);
      });
      break;
    }
    case 'message': {
      events.push([
        'response.output_item.added',
        {
          output_index: index,
          item: { ...item, status: 'in_progress', content: [] },
        },
      ]);
      (item['content'] as JsonObject[]).forEach((part, contentIndex) => {
        const where = { ...at, content_index: contentIndex };
        const refusal = part['type'] === 'refusal';
        const text = String(refusal ? part['refusal'] : part['text']);
        events.push([
          'response.content_part.added',
          {
            ...where,
            part: refusal
              ? { type: 'refusal', refusal: '' }
              : { type: 'output_text', text: '', annotations: [] },
          },
        ]);
        for (const delta of textPieces(text)) {
          events.push([
            refusal ? 'response.refusal.delta' : 'response.output_text.delta',
            { ...where, delta, ...(refusal ? {} : { logprobs: [] }) },
          ]);
        }
        events.push(
          refusal
            ? ['response.refusal.done', { ...where, refusal: text }]
            : ['response.output_text.done', { ...where, text, logprobs: [] }],
        );
        events.push(['response.content_part.done', { ...where, part }]);
      });
      break;
    }
    case 'function_call': {
      events.push([
        'response.output_item.added',
        {
          output_index: index,
          item: { ...item, status: 'in_progress', arguments: '' },
        },
      ]);
      const args = String(item['arguments']);
      for (const delta of sliceText(args, options.argumentSliceLength)) {
        events.push([
          'response.function_call_arguments.delta',
          { ...at, delta },
        ]);
      }
      // The done event may lack `name`: clients take it from the added item.
      events.push([
        'response.function_call_arguments.done',
        { ...at, arguments: args },
      ]);
      break;
    }
  }
  events.push(['response.output_item.done', { output_index: index, item }]);
  return events;
}

/** Renders one reply as the Responses JSON body, or as its semantic SSE events. */
export function renderResponses(
  reply: ScriptedReply,
  options: RenderOptions,
): Frame[] {
  const items = outputItems(reply, options);
  remember(items, options);
  const final = responseObject(reply, options, items);
  if (!options.request.stream) {
    return [{ text: JSON.stringify(final), terminal: false }];
  }
  const events: [string, JsonObject][] = [
    [
      'response.created',
      { response: responseObject(reply, options, 'in-progress') },
    ],
    [
      'response.in_progress',
      { response: responseObject(reply, options, 'in-progress') },
    ],
    ...items.flatMap((item, index) => itemEvents(item, index, options)),
    [
      final['status'] === 'completed'
        ? 'response.completed'
        : 'response.incomplete',
      { response: final },
    ],
  ];
  return events.map(([type, payload], sequence) => ({
    text: `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence, ...payload })}\n\n`,
    terminal: sequence === events.length - 1,
  }));
}
