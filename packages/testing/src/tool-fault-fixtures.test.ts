import { describe, expect, it } from 'vitest';
import { classifyToolResult } from './classify-tool-result.ts';
import { toolFaultFixtures } from './tool-fault-fixtures.ts';

const fixtures = [
  toolFaultFixtures.ok('c1', { temp: 21 }),
  toolFaultFixtures.nullResult('c2'),
  toolFaultFixtures.emptyResult('c3'),
  toolFaultFixtures.failure('c4', {
    code: 'timeout',
    message: 'slow',
    retryable: true,
  }),
  toolFaultFixtures.omittedResult('c5'),
];

describe('toolFaultFixtures', () => {
  it('renders OpenAI tool messages, dropping the omitted result', () => {
    expect(toolFaultFixtures.openAiMessages(fixtures)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: '{"temp":21}' },
      { role: 'tool', tool_call_id: 'c2', content: null },
      { role: 'tool', tool_call_id: 'c3', content: '' },
      {
        role: 'tool',
        tool_call_id: 'c4',
        content:
          '{"error":{"code":"timeout","message":"slow","retryable":true}}',
      },
    ]);
  });

  it('renders one Anthropic user message of tool_result blocks', () => {
    expect(toolFaultFixtures.anthropicMessage(fixtures)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'c1', content: '{"temp":21}' },
        { type: 'tool_result', tool_use_id: 'c2' },
        { type: 'tool_result', tool_use_id: 'c3', content: '' },
        {
          type: 'tool_result',
          tool_use_id: 'c4',
          content:
            '{"error":{"code":"timeout","message":"slow","retryable":true}}',
          is_error: true,
        },
      ],
    });
  });

  it('each fixture classifies as the kind it declares, on both wires', () => {
    const openAi = new Map(
      toolFaultFixtures
        .openAiMessages(fixtures)
        .map((message) => [message.tool_call_id, message] as const),
    );
    const anthropic = new Map(
      toolFaultFixtures
        .anthropicMessage(fixtures)
        .content.map((block) => [block.tool_use_id, block] as const),
    );
    for (const fixture of fixtures) {
      const sent = openAi.get(fixture.callId);
      const block = anthropic.get(fixture.callId);
      expect(classifyToolResult(sent && { content: sent.content }).kind).toBe(
        fixture.kind,
      );
      expect(
        classifyToolResult(
          block && { content: block.content, isError: block.is_error ?? false },
        ).kind,
      ).toBe(fixture.kind);
    }
  });

  it('ok() sends strings as they are', () => {
    expect(toolFaultFixtures.ok('c', 'plain').content).toBe('plain');
  });
});
