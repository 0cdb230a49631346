import { throwingLogger } from '@candor/hostile-fixtures';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { loadTraceTable } from './load-trace-table.ts';
import { readTrace } from './read-trace.ts';
import { TraceNormaliser } from './trace-normaliser.ts';

const acme = loadTraceTable(
  new URL('__fixtures__/invented/acme-agent.table.json', import.meta.url),
);

const lines = [
  JSON.stringify({ acme: 1, ev: 'call', cid: 'a', fn: 'f' }),
  '{"acme":1,',
  JSON.stringify({ acme: 1, ev: 'done', cid: 'a', verdict: 'fine' }),
];

describe('a logger that throws', () => {
  it('never stops TraceNormaliser counting a malformed line', () => {
    const { logger, attempts } = throwingLogger();
    const normaliser = new TraceNormaliser({ tables: [acme], logger });
    const records: CallRecord[] = [];
    for (const line of lines) records.push(...normaliser.pushLine(line));
    records.push(...normaliser.end());
    expect(records.map((record) => [record.callId, record.outcome])).toEqual([
      ['a', 'success'],
    ]);
    expect(normaliser.summary).toMatchObject({ lines: 3, malformed: 1 });
    expect(attempts()).toBeGreaterThan(0);
  });

  it('never rejects readTrace', async () => {
    const { logger } = throwingLogger();
    const trace = readTrace([lines.join('\n') + '\n'], {
      tables: [acme],
      logger,
    });
    const records: CallRecord[] = [];
    for await (const record of trace) records.push(record);
    expect(records).toHaveLength(1);
    expect(trace.summary.malformed).toBe(1);
    expect(trace.summary.malformedLines.map((line) => line.line)).toEqual([2]);
  });
});
