/**
 * `pnpm demo:traces`: one failing call per harness, each in its harness's own format, shown the
 * way a naive mapping reads it and the way Candor does.
 */
import { formatRecord, readTrace, type CallRecord } from './index.ts';

type Event = Record<string, unknown> & {
  type?: string;
  subtype?: string;
  status?: string;
  item?: { result?: unknown };
  part?: { state?: { status?: string } };
};

interface DemoCase {
  readonly harness: string;
  readonly story: string;
  /** What a naive reader looks at, and the naive reading itself, run on the same lines. */
  readonly naive: {
    readonly reads: string;
    readonly succeeded: (events: readonly Event[]) => boolean;
  };
  readonly lines: readonly string[];
}

const cases: readonly DemoCase[] = [
  {
    harness: 'claude-code',
    story:
      'the screenshot tool failed; the run still ends with subtype "success"',
    naive: {
      reads: 'the run result line: subtype "success"',
      succeeded: (events) =>
        events.find((event) => event.type === 'result')?.subtype === 'success',
    },
    lines: [
      '{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"tool_use","id":"toolu_shot","name":"mcp__browser__screenshot","input":{"url":"http://localhost:3000/pricing"}}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"a1"}',
      '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_shot","content":[{"type":"text","text":"Error: net::ERR_CONNECTION_REFUSED"}],"is_error":true}]},"parent_tool_use_id":null,"session_id":"s1","uuid":"u1"}',
      '{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"Documented the pricing page screenshots.","session_id":"s1","permission_denials":[],"uuid":"r1"}',
    ],
  },
  {
    harness: 'codex',
    story: 'a failed MCP call still carries a result',
    naive: {
      reads: 'item.completed has a result',
      succeeded: (events) =>
        events.some(
          (event) =>
            event.type === 'item.completed' &&
            event.item?.result !== null &&
            event.item?.result !== undefined,
        ),
    },
    lines: [
      '{"type":"turn.started"}',
      '{"type":"item.started","item":{"id":"item_1","type":"mcp_tool_call","server":"browser","tool":"screenshot","arguments":{"url":"http://localhost:3000/pricing"},"result":null,"error":null,"status":"in_progress"}}',
      '{"type":"item.completed","item":{"id":"item_1","type":"mcp_tool_call","server":"browser","tool":"screenshot","arguments":{"url":"http://localhost:3000/pricing"},"result":{"content":[{"type":"text","text":"page did not load"}],"structured_content":null},"error":null,"status":"failed"}}',
      '{"type":"turn.completed","usage":{"input_tokens":1,"cached_input_tokens":0,"output_tokens":1}}',
    ],
  },
  {
    harness: 'gemini',
    story: 'the run was cancelled before the screenshot call reported anything',
    naive: {
      reads: 'no tool_result says "error"',
      succeeded: (events) =>
        !events.some(
          (event) => event.type === 'tool_result' && event.status === 'error',
        ),
    },
    lines: [
      '{"type":"init","timestamp":"2026-08-20T10:00:00.000Z","session_id":"s2","model":"gemini-2.5-pro"}',
      '{"type":"tool_use","timestamp":"2026-08-20T10:00:01.000Z","tool_name":"take_screenshot","tool_id":"take_screenshot__1","parameters":{"url":"http://localhost:3000/pricing"}}',
      '{"type":"result","timestamp":"2026-08-20T10:00:09.000Z","status":"error","error":{"type":"FatalCancellationError","message":"Operation cancelled."}}',
    ],
  },
  {
    harness: 'opencode',
    story: 'the screenshot script exited 1; opencode says "completed"',
    naive: {
      reads: 'state.status is "completed"',
      succeeded: (events) =>
        events.some((event) => event.part?.state?.status === 'completed'),
    },
    lines: [
      '{"type":"tool_use","timestamp":1780371840625,"sessionID":"ses_d","part":{"id":"prt_1","sessionID":"ses_d","messageID":"msg_1","type":"tool","callID":"call_shot","tool":"bash","state":{"status":"completed","input":{"command":"node shoot.js /pricing","description":"Take screenshot"},"output":"Error: browser not found\\n","title":"Take screenshot","metadata":{"output":"Error: browser not found\\n","exit":1,"description":"Take screenshot"},"time":{"start":1780371840602,"end":1780371840616}}}}',
    ],
  },
];

const out: string[] = [
  'What a naive mapping shows next to what Candor shows, for one failing call per harness.',
  '',
];
for (const demo of cases) {
  const records: CallRecord[] = [];
  for await (const record of readTrace(
    demo.lines.map((line) => `${line}\n`),
    { harness: demo.harness },
  )) {
    records.push(record);
  }
  out.push(`${demo.harness}: ${demo.story}`);
  const events = demo.lines.map((line) => JSON.parse(line) as Event);
  const naive = demo.naive.succeeded(events) ? '✓ success' : '✗ error';
  out.push(`  naive   ${naive}  (${demo.naive.reads})`);
  for (const record of records) out.push(`  candor  ${formatRecord(record)}`);
  out.push('');
}
out.push(
  'Limit: gemini prints no exit code, so a shell command that exits non-zero shows as ✓ there too.',
  'Candor documents that limit instead of guessing from the output text.',
);
process.stdout.write(`${out.join('\n')}\n`);
