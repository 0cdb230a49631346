import { describe, expect, it } from 'vitest';
import { ToolResponse } from './tool-response.ts';
import { toolResultForModel } from './tool-result-for-model.ts';
import { typedResultForModel } from './typed-result-for-model.ts';

describe('typedResultForModel', () => {
  it("types toolResultForModel's words by outcome", () => {
    const cases = [
      [ToolResponse.success('42'), 'text'],
      [ToolResponse.partial('rows 1-10', { reason: 'truncated' }), 'text'],
      [ToolResponse.error('NOT_FOUND', 'no such file'), 'error-text'],
      [ToolResponse.denied('The user said no'), 'execution-denied'],
    ] as const;
    for (const [response, type] of cases) {
      const { content } = toolResultForModel(response, 'probe');
      const typed = typedResultForModel(response, 'probe');
      expect(typed.type).toBe(type);
      expect('reason' in typed ? typed.reason : typed.value).toBe(content);
    }
  });

  it('gives data alone as a JSON value, and data that is not JSON in words', () => {
    expect(
      typedResultForModel(
        ToolResponse.success('', { data: { answer: 42 } }),
        'probe',
      ),
    ).toEqual({ type: 'json', value: { answer: 42 } });
    const big = typedResultForModel(
      ToolResponse.success('', { data: { big: 1n } }),
      'probe',
    );
    expect(big.type).toBe('text');
    expect('value' in big ? big.value : '').toMatch(/cannot|could not/);
  });
});
