import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (relative: string): string =>
  readFileSync(new URL(relative, import.meta.url), 'utf8');

describe('README', () => {
  it('shows readme-example.test.ts verbatim, so the example runs as a test', () => {
    const readme = read('../README.md');
    const block =
      /<!-- example:start -->\s*```ts\n([\s\S]*?)```\s*<!-- example:end -->/.exec(
        readme,
      )?.[1];
    const source = read('./readme-example.test.ts').replace(
      "from './index.ts'",
      "from '@candor/testing'",
    );
    expect(block).toBe(source);
  });

  it('shows the Candor agent example from @candor/core verbatim', () => {
    const readme = read('../README.md');
    const block =
      /<!-- candor-example:start -->\s*```ts\n([\s\S]*?)```\s*<!-- candor-example:end -->/.exec(
        readme,
      )?.[1];
    const source = read(
      '../../core/src/testing-readme-example.test.ts',
    ).replace("from './index.ts'", "from '@candor/core'");
    expect(block).toBe(source);
  });
});
