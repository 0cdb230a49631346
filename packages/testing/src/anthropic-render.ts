import { rememberThinking, thinkingBlockJson } from './anthropic-thinking.ts';
import type {
  Frame,
  ParsedRequest,
  RenderOptions,
} from './provider-protocol.ts';
import {
  answerTokensOf,
  argumentText,
  estimateTokens,
  reasoningTokensOf,
  sliceText,
  textPieces,
  type ScriptedFinish,
  type ScriptedReasoning,
  type ScriptedReply,
} from './scripted-reply.ts';

type JsonObject = Record<string, unknown>;

/** A thinking block streams its text as thinking_delta, then its signature as one signature_delta. */
function thinkingFrames(block: ScriptedReasoning, index: number): Frame[] {
  if (block.type === 'redacted_thinking') {
    return [
      event('content_block_start', {
        index,
        content_block: { type: 'redacted_thinking', data: block.data },
      }),
      event('content_block_stop', { index }),
    ];
  }
  return [
    event('content_block_start', {
      index,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    }),
    // A block shown with its text omitted sends no thinking_delta, only the signature.
    ...(block.thinking === '' ? [] : textPieces(block.thinking)).map((piece) =>
      event('content_block_delta', {
        index,
        delta: { type: 'thinking_delta', thinking: piece },
      }),
    ),
    event('content_block_delta', {
      index,
      delta: { type: 'signature_delta', signature: block.signature },
    }),
    event('content_block_stop', { index }),
  ];
}

function stopReason(finish: ScriptedFinish): string {
  switch (finish) {
    case 'stop':
      return 'end_turn';
    case 'tool_calls':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
  }
}

export function event(
  type: string,
  payload: JsonObject,
  terminal = false,
): Frame {
  return {
    text: `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`,
    terminal,
  };
}

function inputTokens(request: ParsedRequest): number {
  return estimateTokens(
    request.history
      .map((entry) => ('text' in entry ? entry.text : ''))
      .join(' '),
  );
}

// Anthropic's output_tokens already include the thinking tokens billed.
function outputTokens(reply: ScriptedReply): number {
  return answerTokensOf(reply) + reasoningTokensOf(reply);
}

function parsedInput(call: { readonly args: unknown }): unknown {
  if (typeof call.args !== 'string') {
    return call.args;
  }
  try {
    return JSON.parse(call.args) as unknown;
  } catch {
    return call.args;
  }
}

export function renderJson(
  reply: ScriptedReply,
  options: RenderOptions,
): Frame[] {
  rememberThinking(reply, options.sent);
  const content: JsonObject[] = (reply.reasoning ?? []).map(thinkingBlockJson);
  if (reply.text !== undefined && reply.text !== '') {
    content.push({ type: 'text', text: reply.text });
  }
  for (const call of reply.toolCalls) {
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: parsedInput(call),
    });
  }
  const body = {
    id: `msg_${options.sequence}`,
    type: 'message',
    role: 'assistant',
    model: options.request.model,
    content,
    stop_reason: stopReason(reply.finish),
    stop_sequence: null,
    usage: {
      input_tokens: inputTokens(options.request),
      output_tokens: outputTokens(reply),
    },
  };
  return [{ text: JSON.stringify(body), terminal: false }];
}

export function renderStream(
  reply: ScriptedReply,
  options: RenderOptions,
): Frame[] {
  const frames: Frame[] = [
    event('message_start', {
      message: {
        id: `msg_${options.sequence}`,
        type: 'message',
        role: 'assistant',
        model: options.request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens(options.request), output_tokens: 1 },
      },
    }),
    // The real API sends a ping early in the stream; clients must skip it.
    event('ping', {}),
  ];
  rememberThinking(reply, options.sent);
  let index = 0;
  for (const block of reply.reasoning ?? []) {
    frames.push(...thinkingFrames(block, index));
    index += 1;
  }
  if (reply.text !== undefined && reply.text !== '') {
    frames.push(
      event('content_block_start', {
        index,
        content_block: { type: 'text', text: '' },
      }),
    );
    for (const piece of textPieces(reply.text)) {
      frames.push(
        event('content_block_delta', {
          index,
          delta: { type: 'text_delta', text: piece },
        }),
      );
    }
    frames.push(event('content_block_stop', { index }));
    index += 1;
  }
  for (const call of reply.toolCalls) {
    frames.push(
      event('content_block_start', {
        index,
        content_block: {
          type: 'tool_use',
          id: call.id,
          name: call.name,
          input: {},
        },
      }),
    );
    // The first input_json_delta is empty, as on the real wire.
    for (const slice of [
      '',
      ...sliceText(argumentText(call), options.argumentSliceLength),
    ]) {
      frames.push(
        event('content_block_delta', {
          index,
          delta: { type: 'input_json_delta', partial_json: slice },
        }),
      );
    }
    frames.push(event('content_block_stop', { index }));
    index += 1;
  }
  frames.push(
    event('message_delta', {
      delta: { stop_reason: stopReason(reply.finish), stop_sequence: null },
      usage: { output_tokens: outputTokens(reply) },
    }),
    event('message_stop', {}, true),
  );
  return frames;
}
