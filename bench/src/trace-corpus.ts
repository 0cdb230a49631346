import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/** What {@link writeTraceCorpus} wrote. */
export interface TraceCorpus {
  readonly path: string;
  readonly bytes: number;
  readonly lines: number;
  /** Tool calls in the trace; the normaliser must emit exactly this many records. */
  readonly calls: number;
  /** Of {@link calls}, how many carry `is_error: true`. */
  readonly errors: number;
}

const SESSION = '0f3d7677-9893-4c4a-bfb6-d33850f2a2ee';
const MODEL = 'claude-sonnet-4-5-20250929';
const TOOLS = ['Bash', 'Read', 'Glob', 'Grep'] as const;

// Deterministic, so two runs read the same bytes: a small linear congruential generator.
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

function resultText(random: () => number): string {
  const lines = 2 + Math.floor(random() * 40);
  const out: string[] = [];
  for (let line = 0; line < lines; line++) {
    out.push(
      `src/module-${Math.floor(random() * 1e6).toString(36)}.ts: line ${String(line)} matched`,
    );
  }
  return out.join('\n');
}

/**
 * Writes a Claude Code `stream-json` trace of at least `minBytes`: an init line, then one
 * assistant `tool_use` line and one user `tool_result` line per call, shaped like the lines
 * observed in the traces package's fixture. Results vary in length (100 B to 3 KB) and every
 * eighth call fails.
 */
export async function writeTraceCorpus(
  path: string,
  minBytes: number,
): Promise<TraceCorpus> {
  if (!Number.isFinite(minBytes) || minBytes < 1) {
    throw new RangeError(
      `minBytes must be at least 1, got ${String(minBytes)}`,
    );
  }
  const random = generator(0x5eed);
  const out = createWriteStream(path);
  let bytes = 0;
  let lines = 0;
  let calls = 0;
  let errors = 0;
  const write = async (value: unknown): Promise<void> => {
    const text = `${JSON.stringify(value)}\n`;
    bytes += Buffer.byteLength(text);
    lines += 1;
    if (!out.write(text)) await once(out, 'drain');
  };
  await write({
    type: 'system',
    subtype: 'init',
    session_id: SESSION,
    model: MODEL,
    tools: TOOLS,
    uuid: 'i0',
  });
  while (bytes < minBytes) {
    calls += 1;
    const id = `toolu_${calls.toString(36).padStart(8, '0')}`;
    const name = TOOLS[calls % TOOLS.length] ?? 'Bash';
    const failed = calls % 8 === 0;
    if (failed) errors += 1;
    await write({
      type: 'assistant',
      message: {
        id: `msg_${String(calls)}`,
        type: 'message',
        role: 'assistant',
        model: MODEL,
        content: [
          {
            type: 'tool_use',
            id,
            name,
            input: {
              command: `grep -rn TODO src/${String(calls)}`,
              description: 'Search',
            },
          },
        ],
        stop_reason: null,
        usage: { input_tokens: 5, output_tokens: 40 },
      },
      parent_tool_use_id: null,
      session_id: SESSION,
      uuid: `a${String(calls)}`,
    });
    await write({
      type: 'user',
      message: {
        role: 'user',
        content: [
          {
            tool_use_id: id,
            type: 'tool_result',
            content: failed
              ? `Exit code 2\n${resultText(random)}`
              : resultText(random),
            is_error: failed,
          },
        ],
      },
      parent_tool_use_id: null,
      session_id: SESSION,
      uuid: `u${String(calls)}`,
    });
  }
  out.end();
  await once(out, 'close');
  return { path, bytes, lines, calls, errors };
}
