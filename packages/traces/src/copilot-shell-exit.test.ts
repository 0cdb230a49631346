import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readTrace } from './read-trace.ts';

// Composed tool.execution_complete shapes the real runs (__fixtures__/copilot/) do not show, read
// through the shipped copilot table: nothing that failed may read as success, and a shape the
// table cannot judge stays what the vendor word says (unknown when there is none).
const shapes: readonly (readonly [string, object, string])[] = [
  [
    'exit code as text',
    {
      success: true,
      result: { contents: [{ type: 'shell_exit', exitCode: '1' }] },
    },
    'error',
  ],
  [
    'exit code 0 as text',
    {
      success: true,
      result: { contents: [{ type: 'shell_exit', exitCode: '0' }] },
    },
    'success',
  ],
  [
    'error message beside success: true',
    { success: true, error: { message: 'boom' }, result: { content: 'x' } },
    'error',
  ],
  [
    'error code beside exit 0',
    {
      success: true,
      error: { code: 'failure', message: 'm' },
      result: { contents: [{ type: 'shell_exit', exitCode: 0 }] },
    },
    'error',
  ],
  ['no success word', { result: { content: 'x' } }, 'unknown'],
  [
    'exit code null',
    {
      success: true,
      result: { contents: [{ type: 'shell_exit', exitCode: null }] },
    },
    'unknown',
  ],
  [
    'exit code 137',
    {
      success: true,
      result: { contents: [{ type: 'shell_exit', exitCode: 137 }] },
    },
    'error',
  ],
];

describe('the copilot table on composed shell results', () => {
  it.each(shapes)('%s', async (name, data, outcome) => {
    const at = '2026-08-05T19:21:01.030Z';
    const lines = [
      {
        type: 'tool.execution_start',
        data: { toolCallId: 'c1', toolName: 'bash', arguments: {} },
        id: 's1',
        timestamp: at,
      },
      {
        type: 'tool.execution_complete',
        data: { toolCallId: 'c1', ...data },
        id: 'e1',
        timestamp: at,
      },
    ];
    const trace = readTrace(
      Readable.from([lines.map((line) => JSON.stringify(line)).join('\n')]),
    );
    const records = [];
    for await (const record of trace) records.push(record);
    expect(trace.summary.harness).toBe('copilot');
    expect(
      records.map((record) => record.outcome),
      name,
    ).toEqual([outcome]);
  });
});
