import { describe, expect, it } from 'vitest';
import {
  classifyToolResult,
  type ToolResultInput,
} from './classify-tool-result.ts';

describe('classifyToolResult', () => {
  it.each<[string, ToolResultInput | undefined, string]>([
    ['no result at all', undefined, 'missing'],
    ['null content', { content: null }, 'null'],
    ['absent content (Anthropic)', { content: undefined }, 'null'],
    ['the JSON text null', { content: 'null' }, 'null'],
    ['an empty string', { content: '' }, 'empty'],
    ['whitespace', { content: '  \n' }, 'empty'],
    ['an empty block array', { content: [] }, 'empty'],
    ['blocks with no text', { content: [{ type: 'text', text: '' }] }, 'empty'],
    ['plain text', { content: 'sunny' }, 'ok'],
    ['JSON', { content: '{"temp":21}' }, 'ok'],
    [
      'text blocks',
      {
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
      'ok',
    ],
    [
      'the failure envelope',
      {
        content:
          '{"error":{"code":"timeout","message":"slow","retryable":true}}',
      },
      'error',
    ],
    ['is_error with plain text', { content: 'denied', isError: true }, 'error'],
    [
      'is_error with no content',
      { content: undefined, isError: true },
      'error',
    ],
    [
      'an error key that is not the envelope',
      { content: '{"error":"text only"}' },
      'ok',
    ],
  ])('%s → %s', (_label, input, kind) => {
    expect(classifyToolResult(input).kind).toBe(kind);
  });

  it('exposes the text and the parsed JSON', () => {
    expect(
      classifyToolResult({
        content: [
          { type: 'text', text: '{"a":' },
          { type: 'text', text: '1}' },
        ],
      }),
    ).toEqual({ kind: 'ok', text: '{"a":1}', json: { a: 1 } });
    expect(classifyToolResult({ content: 'not json' })).toEqual({
      kind: 'ok',
      text: 'not json',
    });
  });

  it("reads Candor's model text: a standard code in brackets, [DENIED], [INCOMPLETE RESULT: …]", () => {
    expect(
      classifyToolResult({ content: '[NOT_FOUND] No such file: a.txt' }),
    ).toEqual({
      kind: 'error',
      code: 'NOT_FOUND',
      text: '[NOT_FOUND] No such file: a.txt',
    });
    expect(
      classifyToolResult({ content: '[DENIED] This call was NOT executed.' })
        .kind,
    ).toBe('denied');
    expect(
      classifyToolResult({
        content:
          '[INCOMPLETE RESULT: result_truncated] This result is incomplete.',
      }),
    ).toMatchObject({ kind: 'partial', reason: 'result_truncated' });
    // Anthropic sends the same text with is_error set: the code is still read.
    expect(
      classifyToolResult({ content: '[TIMEOUT] slow', isError: true }),
    ).toMatchObject({ kind: 'error', code: 'TIMEOUT' });
    // Not one of the 15 codes, or not at the start: ordinary output.
    for (const content of [
      '[INFO] ok',
      'see [NOT_FOUND] below',
      '[not_found] x',
    ]) {
      expect(classifyToolResult({ content }).kind).toBe('ok');
    }
  });
});
