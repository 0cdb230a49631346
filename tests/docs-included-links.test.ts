import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { siteLinkForIncluded } from '../docs/.vitepress/included-links.ts';

const docsDir = join(import.meta.dirname, '..', 'docs');

describe('links in the package READMEs included into the site', () => {
  it.each([
    ['../../docs/fleet.md', 'packages/breaker-redis.md', '/fleet'],
    ['../../docs/builtins.md', 'packages/builtins.md', '/builtins'],
    ['../../docs/getting-started.md', 'packages/tools.md', '/getting-started'],
    [
      '../../docs/getting-started.md#commonjs',
      'packages/tools.md',
      '/getting-started#commonjs',
    ],
  ])('%s from %s → %s', (href, page, expected) => {
    expect(siteLinkForIncluded(href, page, docsDir)).toBe(expected);
  });

  it('fails the build on a dead link from an included README', () => {
    expect(() =>
      siteLinkForIncluded(
        '../../docs/no-such-page.md',
        'packages/tools.md',
        docsDir,
      ),
    ).toThrow(/dead link in packages\/tools\.md.*no docs\/no-such-page\.md/);
    expect(() =>
      siteLinkForIncluded(
        '../../CONTRIBUTING.md',
        'packages/tools.md',
        docsDir,
      ),
    ).toThrow(/points outside docs/);
  });

  it('leaves other pages and absolute links alone', () => {
    expect(siteLinkForIncluded('../codes.md', 'guides/mcp.md', docsDir)).toBe(
      '../codes.md',
    );
    expect(
      siteLinkForIncluded(
        'https://example.com/x.md',
        'packages/tools.md',
        docsDir,
      ),
    ).toBe('https://example.com/x.md');
    expect(siteLinkForIncluded('#usage', 'packages/tools.md', docsDir)).toBe(
      '#usage',
    );
  });
});
