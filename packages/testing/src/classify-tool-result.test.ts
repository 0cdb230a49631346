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
});
