import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { readTrace } from './read-trace.ts';

// The cursor table on three real Cursor Agent runs (erenmeren/slave, see the fixture's header):
// shell and edit successes, the same calls refused by a gate, and a read whose call id holds a
// newline. Sources of every call: __fixtures__/sources.json.

const fixture = new URL('__fixtures__/cursor/real-runs.jsonl', import.meta.url);

async function drain(trace: ReturnType<typeof readTrace>) {
  const list: CallRecord[] = [];
  for await (const record of trace) list.push(record);
  return list;
}

function facts(list: readonly CallRecord[]) {
  return list.map(
    ({ callId, tool, outcome, vendorStatus, exitCode, denialReason }) => ({
      callId,
      tool,
      outcome,
      vendorStatus,
      exitCode,
      denialReason,
    }),
  );
}

const gateReason =
  'Paused by the M13 gate evidence run.\n\nAgent note: Do not suggest workarounds to the blocked tool.';

describe('cursor-agent stream-json: real runs', () => {
  it('reads every real call right, call by call', async () => {
    const trace = readTrace(createReadStream(fixture));
    const list = await drain(trace);
    expect(trace.summary.harness).toBe('cursor');
    expect(facts(list)).toEqual([
      {
        callId: 'tool_9c7d36cd-4356-4318-a70e-932fd2d47a7',
        tool: 'shellToolCall',
        outcome: 'success',
        vendorStatus: 'success',
        exitCode: 0,
        denialReason: null,
      },
      {
        callId: 'tool_63ec0da3-7756-4356-87ca-25812ea4ba5',
        tool: 'editToolCall',
        outcome: 'success',
        vendorStatus: 'success',
        exitCode: null,
        denialReason: null,
      },
      {
        callId: 'tool_264c8d13-d13d-498e-bc8a-66a4ff75d74',
        tool: 'shellToolCall',
        outcome: 'denied',
        vendorStatus: 'rejected',
        exitCode: null,
        denialReason: gateReason,
      },
      {
        callId: 'tool_5a6e260f-7383-4253-9e67-091682afc64',
        tool: 'editToolCall',
        outcome: 'denied',
        vendorStatus: 'rejected',
        exitCode: null,
        denialReason: gateReason,
      },
      {
        callId:
          'call-ae488142-4603-40ee-b2b1-6af10cd2ae63-0\nfc_12f193b8-7246-9972-8a7f-29022849f6a6_0',
        tool: 'readToolCall',
        outcome: 'success',
        vendorStatus: 'success',
        exitCode: null,
        denialReason: null,
      },
    ]);
  });

  it("keeps a refused call's arguments from its started line (the completed line has none)", async () => {
    const list = await drain(readTrace(createReadStream(fixture)));
    const refused = list.find(
      (record) => record.callId === 'tool_264c8d13-d13d-498e-bc8a-66a4ff75d74',
    );
    expect(refused?.argsSummary).toContain('echo m13-shell-ok > shell.txt');
    expect(refused?.startedAt).not.toBeNull();
    expect(refused?.endedAt).not.toBeNull();
  });

  // Each run on its own, and each without its init line (a trace cut at the top): still cursor,
  // from the tool_call lines alone.
  it.each([
    ['e31420b7-c272-4a68-8430-63a1428c21a3', 2],
    ['142d3a45-bb80-4b79-b95c-f35a3b09c0d0', 2],
    ['14d4f18d-9417-4d34-a5cf-e326538d732a', 1],
  ])(
    'run %s alone, with or without its init line, is cursor',
    async (session, calls) => {
      const lines = readFileSync(fixture, 'utf8')
        .split('\n')
        .filter((line) => line.includes(session));
      for (const cut of [lines, lines.slice(1)]) {
        const trace = readTrace([cut.join('\n')]);
        const list = await drain(trace);
        expect(trace.summary.harness).toBe('cursor');
        expect(list).toHaveLength(calls);
      }
    },
  );
});
