import { rememberSignatures } from './gemini-thought-signatures.ts';
import type {
  Frame,
  ParsedRequest,
  RenderOptions,
} from './provider-protocol.ts';
import {
  answerTokensOf,
  estimateTokens,
  reasoningTokensOf,
  textPieces,
  type ScriptedFinish,
  type ScriptedReply,
} from './scripted-reply.ts';

// GenerateContentResponse as documented at https://ai.google.dev/api/generate-content
// (candidates, promptFeedback.blockReason, usageMetadata.thoughtsTokenCount) and
// https://ai.google.dev/gemini-api/docs/thinking (thought parts with includeThoughts).

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function finishReason(finish: ScriptedFinish): string {
  switch (finish) {
    case 'stop':
    case 'tool_calls':
      // Gemini ends a function-calling turn with STOP too.
      return 'STOP';
    case 'content_filter':
      return 'SAFETY';
  }
}

function promptTokens(request: ParsedRequest): number {
  return estimateTokens(
    request.history
      .map((entry) => ('text' in entry ? entry.text : ''))
      .join(' '),
  );
}

// thoughtsTokenCount is reported apart from candidatesTokenCount; the total counts both.
function usage(reply: ScriptedReply, request: ParsedRequest): JsonObject {
  const prompt = promptTokens(request);
  const candidates = answerTokensOf(reply);
  const thoughts = reasoningTokensOf(reply);
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    ...(thoughts > 0 ? { thoughtsTokenCount: thoughts } : {}),
    totalTokenCount: prompt + candidates + thoughts,
  };
}

export function argsOf(call: { readonly args: unknown }): unknown {
  if (typeof call.args !== 'string') return call.args;
  try {
    return JSON.parse(call.args) as unknown;
  } catch {
    // Gemini's args are always an object; broken JSON cannot be expressed on this wire.
    return {};
  }
}

function response(
  parts: readonly JsonObject[],
  extra: JsonObject,
  options: RenderOptions,
): JsonObject {
  return {
    candidates: [
      {
        content: { parts, role: 'model' },
        index: 0,
        ...('finishReason' in extra
          ? { finishReason: extra['finishReason'] }
          : {}),
      },
    ],
    ...('usageMetadata' in extra
      ? { usageMetadata: extra['usageMetadata'] }
      : {}),
    modelVersion: options.request.model,
    responseId: `resp_${options.sequence}`,
  };
}

/** A prompt Gemini blocks: promptFeedback and no candidates at all. */
function blocked(reason: string, options: RenderOptions): JsonObject {
  const prompt = promptTokens(options.request);
  return {
    promptFeedback: { blockReason: reason },
    usageMetadata: { promptTokenCount: prompt, totalTokenCount: prompt },
    modelVersion: options.request.model,
    responseId: `resp_${options.sequence}`,
  };
}

function callParts(reply: ScriptedReply): JsonObject[] {
  return reply.toolCalls.map((call) => ({
    functionCall: { id: call.id, name: call.name, args: argsOf(call) },
    ...(call.thoughtSignature === undefined
      ? {}
      : { thoughtSignature: call.thoughtSignature }),
  }));
}

/** Thought parts are sent only when the request asks for them. */
function includesThoughts(body: unknown): boolean {
  if (!isObject(body)) return false;
  const config = body['generationConfig'];
  const thinking = isObject(config) ? config['thinkingConfig'] : undefined;
  return isObject(thinking) && thinking['includeThoughts'] === true;
}

function thoughtTexts(reply: ScriptedReply, options: RenderOptions): string[] {
  if (!includesThoughts(options.request.body)) return [];
  return (reply.reasoning ?? []).flatMap((block) =>
    block.type === 'thinking' && block.thinking !== '' ? [block.thinking] : [],
  );
}

function signed(signature: string | undefined): JsonObject {
  return signature === undefined ? {} : { thoughtSignature: signature };
}

/** The JSON body, or the SSE frames, of one reply. */
export function render(reply: ScriptedReply, options: RenderOptions): Frame[] {
  rememberSignatures(reply, options.sent, argsOf);
  const stream = options.request.stream;
  const wrap = (payload: JsonObject, terminal: boolean): Frame =>
    stream
      ? { text: `data: ${JSON.stringify(payload)}\r\n\r\n`, terminal }
      : { text: JSON.stringify(payload), terminal: false };
  if (reply.blockReason !== undefined) {
    return [wrap(blocked(reply.blockReason, options), true)];
  }
  const end = {
    finishReason: finishReason(reply.finish),
    usageMetadata: usage(reply, options.request),
  };
  const thoughts = thoughtTexts(reply, options);
  const text = reply.text ?? '';
  if (!stream) {
    // A text answer's signature rides on its last part.
    const parts = [
      ...thoughts.map((thought) => ({ text: thought, thought: true })),
      ...(text === '' ? [] : [{ text, ...signed(reply.textSignature) }]),
      ...callParts(reply),
    ];
    return [wrap(response(parts, end, options), false)];
  }
  const frame = (parts: readonly JsonObject[], extra: JsonObject = {}) =>
    wrap(response(parts, extra, options), 'finishReason' in extra);
  const frames = [
    ...thoughts.flatMap((thought) =>
      textPieces(thought).map((piece) =>
        frame([{ text: piece, thought: true }]),
      ),
    ),
    ...(text === '' ? [] : textPieces(text)).map((piece) =>
      frame([{ text: piece }]),
    ),
  ];
  // Function calls arrive whole, each turn's in one frame; the last frame carries the finish
  // reason and usage, on an empty text part that carries a text answer's signature.
  if (reply.toolCalls.length > 0) frames.push(frame(callParts(reply)));
  frames.push(frame([{ text: '', ...signed(reply.textSignature) }], end));
  return frames;
}
