import { callExtras, reasoningContent } from './openai-extras.ts';
import type {
  Frame,
  ParsedRequest,
  RenderOptions,
} from './provider-protocol.ts';
import {
  argumentText,
  estimateTokens,
  sliceText,
  textPieces,
  type ScriptedFinish,
  type ScriptedReply,
} from './scripted-reply.ts';

// A fixed timestamp keeps rendered bytes identical from run to run.
const created = 1_700_000_000;

type JsonObject = Record<string, unknown>;

function finishReason(finish: ScriptedFinish): string {
  return finish;
}

function usageOf(
  reply: ScriptedReply,
  request: ParsedRequest,
): { prompt_tokens: number; completion_tokens: number; total_tokens: number } {
  const prompt = estimateTokens(
    request.history
      .map((event) => ('text' in event ? event.text : ''))
      .join(' '),
  );
  const completion = estimateTokens(
    (reply.text ?? '') + reply.toolCalls.map(argumentText).join(''),
  );
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
  };
}

export function dataFrame(payload: unknown, terminal = false): Frame {
  return { text: `data: ${JSON.stringify(payload)}\n\n`, terminal };
}

export function renderJson(
  reply: ScriptedReply,
  options: RenderOptions,
): Frame[] {
  const message: JsonObject = {
    role: 'assistant',
    content: reply.text ?? null,
    refusal: null,
  };
  const reasoning = reasoningContent(reply);
  if (reasoning !== undefined) message['reasoning_content'] = reasoning;
  if (reply.toolCalls.length > 0) {
    message['tool_calls'] = reply.toolCalls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: argumentText(call) },
      ...callExtras(call),
    }));
  }
  const body = {
    id: `chatcmpl-${options.sequence}`,
    object: 'chat.completion',
    created,
    model: options.request.model,
    choices: [
      {
        index: 0,
        message,
        logprobs: null,
        finish_reason: finishReason(reply.finish),
      },
    ],
    usage: usageOf(reply, options.request),
  };
  return [{ text: JSON.stringify(body), terminal: false }];
}

export function renderStream(
  reply: ScriptedReply,
  options: RenderOptions,
): Frame[] {
  const { request } = options;
  const base = {
    id: `chatcmpl-${options.sequence}`,
    object: 'chat.completion.chunk',
    created,
    model: request.model,
  };
  // With include_usage every normal chunk carries `usage: null` (OpenAI's documented shape).
  const usageField = request.includeUsage ? { usage: null } : {};
  const chunk = (delta: JsonObject, finish: string | null = null): Frame =>
    dataFrame({
      ...base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...usageField,
    });
  const frames: Frame[] = [
    chunk({
      role: 'assistant',
      content: reply.text === undefined ? null : '',
      refusal: null,
    }),
  ];
  // Only a reply with thinking streams `reasoning_content`: OpenAI itself never sends the field.
  const reasoning = reasoningContent(reply);
  if (reasoning !== undefined) {
    for (const piece of textPieces(reasoning)) {
      frames.push(chunk({ reasoning_content: piece }));
    }
  }
  if (reply.text !== undefined && reply.text !== '') {
    for (const piece of textPieces(reply.text)) {
      frames.push(chunk({ content: piece }));
    }
  }
  reply.toolCalls.forEach((call, index) => {
    frames.push(
      chunk({
        tool_calls: [
          {
            index,
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: '' },
            ...callExtras(call),
          },
        ],
      }),
    );
    for (const slice of sliceText(
      argumentText(call),
      options.argumentSliceLength,
    )) {
      frames.push(
        chunk({ tool_calls: [{ index, function: { arguments: slice } }] }),
      );
    }
  });
  frames.push(chunk({}, finishReason(reply.finish)));
  if (request.includeUsage) {
    frames.push(
      dataFrame({ ...base, choices: [], usage: usageOf(reply, request) }),
    );
  }
  frames.push({ text: 'data: [DONE]\n\n', terminal: true });
  return frames;
}
