import { describe, expect, it } from 'vitest';
import { readTrace } from './read-trace.ts';

const call = (id: number): string =>
  `${JSON.stringify({ type: 'tool_use', timestamp: 't', tool_name: 'run', tool_id: `t${String(id)}`, parameters: {} })}\n${JSON.stringify({ type: 'tool_result', timestamp: 't', tool_id: `t${String(id)}`, status: 'success', output: '' })}\n`;

// An input that counts what the reader asked of it.
function countingInput(chunks: readonly string[]) {
  const seen = { pulled: 0, closed: 0 };
  const input: AsyncIterable<string> = {
    [Symbol.asyncIterator]() {
      let index = 0;
      return {
        next() {
          seen.pulled += 1;
          const value = chunks[index++];
          return Promise.resolve(
            value === undefined
              ? { done: true as const, value: undefined }
              : { done: false as const, value },
          );
        },
        return() {
          seen.closed += 1;
          return Promise.resolve({ done: true as const, value: undefined });
        },
      };
    },
  };
  return { input, seen };
}

describe('readTrace iteration', () => {
  it('closes the input when the consumer stops early, and reads no further', async () => {
    const { input, seen } = countingInput([call(1), call(2), call(3)]);
    const ids: string[] = [];
    for await (const record of readTrace(input)) {
      ids.push(record.callId);
      break;
    }
    expect(ids).toEqual(['t1']);
    expect(seen).toEqual({ pulled: 1, closed: 1 });
  });

  it('answers overlapping next() calls in order, each record once', async () => {
    const { input } = countingInput([call(1) + call(2), call(3)]);
    const iterator = readTrace(input)[Symbol.asyncIterator]();
    const results = await Promise.all(
      [1, 2, 3, 4, 5].map(() => iterator.next()),
    );
    expect(
      results.map((result) =>
        result.done === true ? undefined : result.value.callId,
      ),
    ).toEqual(['t1', 't2', 't3', undefined, undefined]);
    expect(results.map((result) => result.done)).toEqual([
      false,
      false,
      false,
      true,
      true,
    ]);
  });

  it('rejects once when the input fails, then is done', async () => {
    const failing: AsyncIterable<string> = {
      [Symbol.asyncIterator]() {
        return {
          next: () => Promise.reject(new Error('broken pipe')),
        };
      },
    };
    const iterator = readTrace(failing)[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toThrow('broken pipe');
    await expect(iterator.next()).resolves.toEqual({
      done: true,
      value: undefined,
    });
  });
});
