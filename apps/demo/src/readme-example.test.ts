import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { outcomeOf } from '@candor/tools';
import { afterAll, describe, expect, it } from 'vitest';
import { registry } from './readme-example.ts';

afterAll(() => {
  registry.shutdown();
});

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
    expect(block?.[1]).toBe(source);
  });

  it('divides, and reports division by zero as an error the model can act on', async () => {
    const ok = await registry.call('divide', '{"a":6,"b":3}');
    expect(outcomeOf(ok)).toBe('success');
    expect(ok.data).toBe(2);
    const bad = await registry.call('divide', { a: 1, b: 0 });
    expect(outcomeOf(bad)).toBe('error');
    expect(bad.status === 'error' && bad.errorInfo.code).toBe('INVALID_PARAM');
    const wrong = await registry.call('divide', { a: 'one' });
    expect(wrong.status === 'error' && wrong.errorInfo.code).toBe(
      'INVALID_PARAM',
    );
  });
});
