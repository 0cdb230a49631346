/** A generated OpenAI Responses stream, held in memory as the chunks a socket would deliver. */
export interface ResponsesCorpus {
  /** The SSE bytes, in 64 KiB chunks. */
  readonly chunks: readonly Uint8Array[];
  readonly bytes: number;
  /** SSE frames (one event each). */
  readonly frames: number;
  /** `response.reasoning_summary_text.delta` frames. */
  readonly reasoningDeltas: number;
  /** `response.output_text.delta` frames. */
  readonly textDeltas: number;
  /** Function calls (each one `function_call` item). */
  readonly calls: number;
}

const CHUNK = 64 * 1024;
const WORDS = [
  ' the',
  ' result',
  ' of',
  ' adding',
  ' twelve',
  ' and',
  ' seven',
  ' is',
  ' nineteen',
  ',',
  ' which',
  ' I',
  ' checked',
  ' with',
  ' calc',
  '.',
] as const;

// Deterministic, so two runs read the same bytes: a small linear congruential generator.
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * A Responses stream of at least `minBytes`, shaped like the recorded ones in vercel/ai's
 * packages/openai/src/responses/__fixtures__ (each delta a token or so, with its `obfuscation`
 * padding): `response.created`, a reasoning item with summary deltas and encrypted content, a
 * message of text deltas and a function call, again and again, then `response.completed` with
 * the items and usage. Frames are
 * `event: <type>\ndata: <json>\n\n`, as OpenAI sends them.
 */
export function responsesCorpus(minBytes: number): ResponsesCorpus {
  if (!Number.isFinite(minBytes) || minBytes < 1) {
    throw new RangeError(
      `minBytes must be at least 1, got ${String(minBytes)}`,
    );
  }
  const random = generator(0x0a1);
  const parts: string[] = [];
  let length = 0;
  let sequence = 0;
  let frames = 0;
  let reasoningDeltas = 0;
  let textDeltas = 0;
  let calls = 0;
  const emit = (event: Record<string, unknown>): void => {
    const type = String(event['type']);
    const frame = `event: ${type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}\n\n`;
    sequence += 1;
    frames += 1;
    parts.push(frame);
    length += frame.length;
  };
  const word = (): string =>
    WORDS[Math.floor(random() * WORDS.length)] ?? ' the';
  const obfuscation = (): string =>
    Math.floor(random() * 2 ** 40)
      .toString(36)
      .slice(0, 4 + Math.floor(random() * 10));
  const response = {
    id: 'resp_0bench0000000000000000000000000000000000000000',
    object: 'response',
    created_at: 1_765_552_659,
    model: 'gpt-5-mini-2025-08-07',
    store: false,
  };
  emit({
    type: 'response.created',
    response: { ...response, status: 'in_progress', output: [], usage: null },
  });
  const output: unknown[] = [];
  const reasoningId = 'rs_0bench000000000000000000000000000000000000000';
  emit({
    type: 'response.output_item.added',
    output_index: 0,
    item: { id: reasoningId, type: 'reasoning', summary: [] },
  });
  let summary = '';
  for (let index = 0; index < 200; index++) {
    const delta = word();
    summary += delta;
    reasoningDeltas += 1;
    emit({
      type: 'response.reasoning_summary_text.delta',
      item_id: reasoningId,
      output_index: 0,
      summary_index: 0,
      delta,
      obfuscation: obfuscation(),
    });
  }
  const reasoning = {
    id: reasoningId,
    type: 'reasoning',
    encrypted_content: `gAAAAAB${'x'.repeat(1_200)}==`,
    summary: [{ type: 'summary_text', text: summary }],
  };
  emit({ type: 'response.output_item.done', output_index: 0, item: reasoning });
  output.push(reasoning);
  // Messages of up to 512 text deltas, each followed by a function call whose arguments stream
  // in slices (the other path through a parser), until the size is reached. The closing frames
  // repeat each message's text, as OpenAI's do.
  let index = 1;
  while (length < minBytes) {
    const messageId = `msg_0bench${String(index).padStart(8, '0')}`;
    emit({
      type: 'response.output_item.added',
      output_index: index,
      item: { id: messageId, type: 'message', role: 'assistant', content: [] },
    });
    let text = '';
    for (let delta = 0; delta < 512 && length < minBytes; delta++) {
      const piece = word();
      text += piece;
      textDeltas += 1;
      emit({
        type: 'response.output_text.delta',
        item_id: messageId,
        output_index: index,
        content_index: 0,
        delta: piece,
        logprobs: [],
        obfuscation: obfuscation(),
      });
    }
    const message = {
      id: messageId,
      type: 'message',
      status: 'completed',
      role: 'assistant',
      content: [{ type: 'output_text', annotations: [], text }],
    };
    emit({
      type: 'response.output_text.done',
      item_id: messageId,
      output_index: index,
      content_index: 0,
      text,
      logprobs: [],
    });
    emit({
      type: 'response.output_item.done',
      output_index: index,
      item: message,
    });
    output.push(message);
    index += 1;
    calls += 1;
    const callItem = {
      id: `fc_0bench${String(calls).padStart(8, '0')}`,
      type: 'function_call',
      status: 'completed',
      call_id: `call_bench${String(calls)}`,
      name: 'calc',
      arguments: '{"a":12,"b":7}',
    };
    emit({
      type: 'response.output_item.added',
      output_index: index,
      item: { ...callItem, status: 'in_progress', arguments: '' },
    });
    for (const slice of ['{"a":', '12,', '"b":', '7}'])
      emit({
        type: 'response.function_call_arguments.delta',
        item_id: callItem.id,
        output_index: index,
        delta: slice,
        obfuscation: obfuscation(),
      });
    emit({
      type: 'response.function_call_arguments.done',
      item_id: callItem.id,
      output_index: index,
      arguments: callItem.arguments,
    });
    emit({
      type: 'response.output_item.done',
      output_index: index,
      item: callItem,
    });
    output.push(callItem);
    index += 1;
  }
  emit({
    type: 'response.completed',
    response: {
      ...response,
      status: 'completed',
      output,
      usage: {
        input_tokens: 1_000,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: reasoningDeltas + textDeltas + calls * 8,
        output_tokens_details: { reasoning_tokens: reasoningDeltas },
        total_tokens: 1_000 + reasoningDeltas + textDeltas + calls * 8,
      },
    },
  });
  const bytes = new TextEncoder().encode(parts.join(''));
  const chunks: Uint8Array[] = [];
  for (let at = 0; at < bytes.length; at += CHUNK)
    chunks.push(bytes.subarray(at, at + CHUNK));
  return {
    chunks,
    bytes: bytes.length,
    frames,
    reasoningDeltas,
    textDeltas,
    calls,
  };
}
