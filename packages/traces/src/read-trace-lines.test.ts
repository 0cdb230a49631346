import { describe, expect, it } from 'vitest';
import { decodePiece, readTrace } from './read-trace.ts';

// A gemini-cli tool_use line is enough to see how a line was split and decoded: its id and tool
// name come back in the record.
const head = (id: string, pad: number): string =>
  `{"type":"tool_use","timestamp":"t","tool_id":"${id}","parameters":{"pad":"${'x'.repeat(pad)}"},"tool_name":"`;
const tail = '"}';

// Builds one text whose lines put the hard cases exactly on the reader's decode boundaries.
function boundaryTrace(): { bytes: Buffer; expected: [string, string][] } {
  let text = '';
  const size = (): number => Buffer.byteLength(text);
  const expected: [string, string][] = [];
  // A call whose tool name starts `at` bytes into the whole text.
  const nameAt = (id: string, name: string, at: number, ending: string) => {
    const pad = at - size() - Buffer.byteLength(head(id, 0));
    expect(pad).toBeGreaterThanOrEqual(0);
    text += `${head(id, pad)}${name}${tail}${ending}`;
    expected.push([id, name]);
  };
  // A call whose line, before its ending, stops `at` bytes into the whole text.
  const endsAt = (id: string, name: string, at: number, ending: string) => {
    const pad = at - size() - Buffer.byteLength(`${head(id, 0)}${name}${tail}`);
    expect(pad).toBeGreaterThanOrEqual(0);
    text += `${head(id, pad)}${name}${tail}${ending}`;
    expected.push([id, name]);
  };
  // A two-byte character cut by the first boundary, a four-byte one by the second.
  nameAt('a', 'écrire', decodePiece - 1, '\n');
  nameAt('b', '😀run', 2 * decodePiece - 2, '\n');
  // A CRLF whose CR ends one piece and whose LF starts the next.
  endsAt('c', 'cr', 3 * decodePiece - 1, '\r\n');
  // A line three pieces long.
  nameAt('d', 'long', size() + 3 * decodePiece, '\n');
  // A three-byte character cut by a boundary, on a last line with no newline.
  nameAt('e', '€', 8 * decodePiece - 1, '');
  return { bytes: Buffer.from(text), expected };
}

async function calls(
  input: Iterable<Uint8Array>,
): Promise<{ calls: [string, string][]; lines: number; malformed: number }> {
  const trace = readTrace(input, { harness: 'gemini' });
  const found: [string, string][] = [];
  for await (const record of trace) found.push([record.callId, record.tool]);
  const { lines, malformed } = trace.summary;
  return { calls: found, lines, malformed };
}

describe('readTrace line splitting', () => {
  const { bytes, expected } = boundaryTrace();
  const right = { calls: expected, lines: 5, malformed: 0 };

  it('reads a chunk many decode pieces long exactly, whatever falls on a boundary', async () => {
    expect(bytes.length).toBeGreaterThan(8 * decodePiece);
    expect(await calls([bytes])).toEqual(right);
  });

  it('reads a plain Uint8Array, a view into a larger buffer, the same way', async () => {
    const backing = new Uint8Array(bytes.length + 7);
    backing.set(bytes, 3);
    expect(await calls([backing.subarray(3, 3 + bytes.length)])).toEqual(right);
  });

  it('reads a DataView chunk, and rejects an ArrayBuffer, rather than skipping either unread', async () => {
    // Outside the declared chunk type, but a caller in plain JavaScript can pass them: the decoder
    // reads any view and rejects anything else, and a chunk with no `length` was once skipped.
    const copy = bytes.buffer.slice(
      bytes.byteOffset,
      bytes.byteOffset + bytes.length,
    );
    const view = new DataView(copy) as unknown as Uint8Array;
    expect(await calls([view])).toEqual(right);
    const small = new DataView(copy, 0, 200) as unknown as Uint8Array;
    expect((await calls([small])).lines).toBe(1);
    await expect(calls([copy as unknown as Uint8Array])).rejects.toBeInstanceOf(
      TypeError,
    );
  });

  it('reads the same lines from chunks of any size', async () => {
    for (const size of [1, 1000, decodePiece - 1, decodePiece + 1]) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < bytes.length; at += size) {
        chunks.push(bytes.subarray(at, at + size));
      }
      expect(await calls(chunks)).toEqual(right);
    }
  });
});
