import { createReadStream, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CallRecord } from './call-record.ts';
import { readTrace } from './read-trace.ts';
import type { TraceNormaliserOptions } from './trace-normaliser-options.ts';

// The amp table (amp -x … --stream-json) call by call. Lines 2-27 of the fixture are one real
// Amp run; the rest are composed. Sources of every call: __fixtures__/sources.json.

const fixture = new URL('__fixtures__/amp/stream-json.jsonl', import.meta.url);
const realSession = 'T-019fa4db-29cf-70c9-8d9b-81524df70e52';

async function drain(
  trace: ReturnType<typeof readTrace>,
): Promise<CallRecord[]> {
  const list: CallRecord[] = [];
  for await (const record of trace) list.push(record);
  return list;
}

async function read(
  options: TraceNormaliserOptions = {},
): Promise<{ list: CallRecord[]; harness: string | null }> {
  const trace = readTrace(createReadStream(fixture), options);
  const list = await drain(trace);
  return { list, harness: trace.summary.harness };
}

function facts(list: readonly CallRecord[]) {
  return list.map(({ callId, tool, outcome, vendorStatus, evidence }) => ({
    callId,
    tool,
    outcome,
    vendorStatus,
    evidence,
  }));
}

const ok = (callId: string, tool: string) => ({
  callId,
  tool,
  outcome: 'success',
  vendorStatus: 'false',
  evidence: null,
});

describe('amp -x --stream-json', () => {
  it('reads every call of the fixture right, call by call', async () => {
    const { list, harness } = await read();
    expect(harness).toBe('amp');
    expect(facts(list)).toEqual([
      ok('TU-033wt7zMiPpGnTBUNOVqcP', 'skill'),
      ok('TU-033wt8676K5StumvhRV8kd', 'shell_command'),
      ok('TU-033wt8BbJ5ZZEhQ8kbJ7uq', 'apply_patch'),
      ok('TU-033wt8G1QDArN7WUNr9hLV', 'shell_command'),
      ok('TU-033wt8KojZvETiPRHwRs61', 'apply_patch'),
      ok('TU-033wt8aXdOd7dVwr43YzvE', 'shell_command'),
      ok('TU-033wt8jJBN68J6J8S9gN1r', 'shell_command'),
      // Real: Amp writes is_error false beside exitCode 1; the exit code decides.
      {
        callId: 'TU-033wt8ohXapDIiGHiONt0i',
        tool: 'shell_command',
        outcome: 'error',
        vendorStatus: 'false',
        evidence: "the exitCode in the tool's stringified result is not 0",
      },
      ok('TU-033wt8uE5ELfpjmBjc9XI3', 'apply_patch'),
      ok('TU-033wt94640XN3c8gU8pEAs', 'shell_command'),
      ok('TU-033wt98qSBqjaZRnRiogZ2', 'Task'),
      {
        callId: 'toolu_amp_read',
        tool: 'Read',
        outcome: 'error',
        vendorStatus: 'true',
        evidence: null,
      },
      // No is_error: unknown, not success, even with exitCode 0 in its result.
      {
        callId: 'toolu_amp_bash',
        tool: 'Bash',
        outcome: 'unknown',
        vendorStatus: null,
        evidence: null,
      },
      {
        callId: 'toolu_amp_sleep',
        tool: 'Bash',
        outcome: 'unknown',
        vendorStatus: null,
        evidence: null,
      },
    ]);
  });

  it("reports the vendor's word alone under vendorOnly: the failed cat reads as success", async () => {
    const { list } = await read({ vendorOnly: true });
    const cat = list.find(
      (record) => record.callId === 'TU-033wt8ohXapDIiGHiONt0i',
    );
    expect(cat?.outcome).toBe('success');
  });

  it('keeps the arguments and the result length', async () => {
    const { list } = await read();
    const cat = list.find(
      (record) => record.callId === 'TU-033wt8ohXapDIiGHiONt0i',
    );
    expect(cat?.argsSummary).toBe(
      '{"command":"cat does-not-exist.txt","workdir":"/tmp/amp-elicit"}',
    );
    expect(cat?.resultLength).toBe(
      '{"output":"cat: does-not-exist.txt: No such file or directory\\n","exitCode":1}'
        .length,
    );
    expect(cat?.line).toBe(18);
  });

  // The real run alone, without the composed lines: every line carries its thread id.
  it('its real lines alone are still amp, with 11 calls and one error', async () => {
    const lines = readFileSync(fixture, 'utf8')
      .split('\n')
      .filter((line) => line.includes(realSession));
    expect(lines).toHaveLength(26);
    const trace = readTrace([lines.join('\n')]);
    const list = await drain(trace);
    expect(trace.summary.harness).toBe('amp');
    expect(list).toHaveLength(11);
    expect(list.filter((record) => record.outcome === 'error')).toHaveLength(1);
  });

  // A trace cut anywhere still finds its table: a lone tool_result line.
  it('is recognised from a lone tool_result line', async () => {
    const line = readFileSync(fixture, 'utf8')
      .split('\n')
      .find((text) =>
        text.includes('"tool_use_id":"TU-033wt8ohXapDIiGHiONt0i"'),
      );
    const trace = readTrace([line ?? '']);
    await drain(trace);
    expect(trace.summary.harness).toBe('amp');
  });

  it("tells amp's lines from claude-code's by the T- thread id", async () => {
    const body =
      '"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok","is_error":false}]},"parent_tool_use_id":null';
    for (const [session, harness] of [
      ['T-019fa4db-29cf-70c9-8d9b-81524df70e52', 'amp'],
      ['81c8abc4-f8ad-46d1-a026-9a7f966a105a', 'claude-code'],
    ] as const) {
      const trace = readTrace([
        `{"type":"user",${body},"session_id":"${session}"}`,
      ]);
      await drain(trace);
      expect(trace.summary.harness).toBe(harness);
    }
  });

  // The exit code pattern reads the payload's key, not text: an output that prints
  // `"exitCode":1` is escaped inside its string and does not match.
  it('does not read an exitCode printed inside the output string', async () => {
    const content = JSON.stringify({
      output: 'echo {"exitCode":1}\n',
      exitCode: 0,
    });
    const lines = [
      `{"type":"assistant","message":{"type":"message","role":"assistant","content":[{"type":"tool_use","id":"TU-x","name":"shell_command","input":{"command":"cat log.json"}}]},"parent_tool_use_id":null,"session_id":"T-x"}`,
      JSON.stringify({
        type: 'user',
        message: {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'TU-x',
              content,
              is_error: false,
            },
          ],
        },
        parent_tool_use_id: null,
        session_id: 'T-x',
      }),
    ];
    const list = await drain(readTrace([lines.join('\n')]));
    expect(list.map((record) => record.outcome)).toEqual(['success']);
  });
});
