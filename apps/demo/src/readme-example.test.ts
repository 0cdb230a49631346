import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { divide, outcomeOf } from './readme-example.ts';

const context = {
  signal: new AbortController().signal,
  callId: 'c1',
  toolName: 'divide',
};

describe('the README usage example', () => {
  it('is the code in src/readme-example.ts', () => {
    const readme = readFileSync(
      join(import.meta.dirname, '..', '..', '..', 'README.md'),
      'utf8',
    );
    const block =
      /<!-- example:begin -->\s*```ts\n([\s\S]*?)```\s*<!-- example:end -->/.exec(
        readme,
      );
    const source = readFileSync(
      join(import.meta.dirname, 'readme-example.ts'),
      'utf8',
    );
    expect(block?.[1]).toBeDefined();
    expect(source.startsWith(block?.[1] ?? '∅')).toBe(true);
  });

  it('divides, and reports division by zero as an error the model can act on', async () => {
    const ok = await divide.run({ a: 6, b: 3 }, context);
    expect(outcomeOf(ok)).toBe('success');
    expect(ok.data).toBe(2);
    const bad = await divide.run({ a: 1, b: 0 }, context);
    expect(outcomeOf(bad)).toBe('error');
    expect(bad.status === 'error' && bad.errorInfo.code).toBe('INVALID_PARAM');
  });
});
