import { existsSync } from 'node:fs';
import { posix } from 'node:path';
import type { MarkdownRenderer } from 'vitepress';

/**
 * A package page includes its package's README, whose relative links are written for GitHub:
 * `../../docs/fleet.md` from `packages/breaker-redis/README.md`. On the site that resolves
 * against the page, `docs/packages/breaker-redis.md`, to `/docs/fleet`, a 404 that VitePress's
 * dead-link check does not see (the target is outside the site). This maps each such link to the
 * site's own page and throws for one whose target does not exist, so the build fails.
 *
 * @param href the link as written in the README
 * @param page the including page, relative to `docs/` (`packages/breaker-redis.md`)
 * @param docsDir the absolute `docs/` directory
 * @returns the href to render
 */
export function siteLinkForIncluded(
  href: string,
  page: string,
  docsDir: string,
): string {
  if (
    !page.startsWith('packages/') ||
    /^[a-z][a-z0-9+.-]*:|^[#/]/i.test(href)
  ) {
    return href;
  }
  const [target = '', hash] = href.split('#', 2);
  // Relative to the README, packages/<name>/README.md, as GitHub reads it.
  const name = posix.basename(page, '.md');
  const resolved = posix.join('packages', name, target);
  if (!resolved.startsWith('docs/')) {
    throw new Error(
      `dead link in ${page} (from packages/${name}/README.md): ${href} points outside docs/`,
    );
  }
  const file = resolved.slice('docs/'.length);
  if (!existsSync(posix.join(docsDir, file))) {
    throw new Error(
      `dead link in ${page} (from packages/${name}/README.md): ${href}, no docs/${file}`,
    );
  }
  const path = `/${file.replace(/\.md$/, '').replace(/(^|\/)index$/, '$1')}`;
  return hash === undefined ? path : `${path}#${hash}`;
}

/**
 * The markdown hook that applies {@link siteLinkForIncluded} to every link of every page, before
 * rendering, where VitePress checks links: an included README's dead link throws, which fails
 * the build, and one mapped to a missing site page fails VitePress's own dead-link check.
 *
 * @param docsDir the absolute `docs/` directory
 * @returns a `markdown.config` for VitePress
 */
export function includedLinks(docsDir: string): (md: MarkdownRenderer) => void {
  return (md) => {
    md.core.ruler.push('candor-included-links', (state) => {
      const env = state.env as { relativePath?: string };
      const page = env.relativePath ?? '';
      for (const token of state.tokens) {
        for (const child of token.children ?? []) {
          const href =
            child.type === 'link_open' ? child.attrGet('href') : null;
          if (href !== null) {
            child.attrSet('href', siteLinkForIncluded(href, page, docsDir));
          }
        }
      }
    });
  };
}
