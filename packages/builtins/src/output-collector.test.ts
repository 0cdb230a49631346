import { describe, expect, it } from 'vitest';
import { OutputCollector } from './output-collector.ts';

function collect(maxBytes: number, chunks: string[]) {
  const collector = new OutputCollector(maxBytes);
  for (const chunk of chunks) collector.push(Buffer.from(chunk));
  return collector.result();
}

describe('OutputCollector', () => {
  it('keeps everything up to the cap', () => {
    expect(collect(10, ['hello', 'world'])).toEqual({
      text: 'helloworld',
      bytes: 10,
      truncated: false,
    });
  });

  it('keeps head and tail past the cap, across chunks', () => {
    const result = collect(6, ['abc', 'defg', 'hij', 'klm']);
    expect(result.truncated).toBe(true);
    expect(result.bytes).toBe(13);
    expect(result.text).toBe('abc\n[… 7 bytes omitted …]\nklm');
  });

  it('keeps the tail of a single huge chunk', () => {
    const result = collect(4, ['0123456789']);
    expect(result.text).toBe('01\n[… 6 bytes omitted …]\n89');
  });
});
