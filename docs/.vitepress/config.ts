import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type DefaultTheme } from 'vitepress';
import { includedLinks } from './included-links.ts';

const docsDir = join(import.meta.dirname, '..');
const packagesDir = join(docsDir, '..', 'packages');

// TypeDoc writes the API pages and their sidebar (`pnpm docs:api`); docs:dev and docs:build run
// it first, so the sidebar is there whenever the site is built.
const apiSidebarFile = join(docsDir, 'api', 'typedoc-sidebar.json');
const apiSidebar: DefaultTheme.SidebarItem[] = existsSync(apiSidebarFile)
  ? (JSON.parse(
      readFileSync(apiSidebarFile, 'utf8'),
    ) as DefaultTheme.SidebarItem[])
  : [];

// One page per published package, each including that package's README.
const packagePages = readdirSync(join(docsDir, 'packages'))
  .filter((file) => file.endsWith('.md'))
  .map((file) => file.slice(0, -'.md'.length))
  .filter((name) => existsSync(join(packagesDir, name, 'README.md')))
  .sort();

export default defineConfig({
  title: 'Candor',
  description:
    'AI-agent tools whose outcomes never lie: a failed call can never look like a success.',
  cleanUrls: true,
  lastUpdated: false,
  // The site's data (config, sidebars) goes in one cached script instead of inline in every page.
  metaChunk: true,
  // Dead internal links fail the build (VitePress's default, kept on purpose).
  ignoreDeadLinks: false,
  // The one chunk over Vite's 500 kB warning is the local search index (about 860 kB), which
  // the browser fetches only when the search box opens: already split as the warning advises.
  vite: { build: { chunkSizeWarningLimit: 1024 } },
  markdown: {
    // Before rendering, where VitePress checks links: included READMEs' links become site links.
    config: includedLinks(docsDir),
  },
  themeConfig: {
    search: { provider: 'local' },
    nav: [
      { text: 'Getting started', link: '/getting-started' },
      { text: 'Concepts', link: '/concepts/outcomes' },
      { text: 'Guides', link: '/migrating-string-tools' },
      { text: 'API', link: '/api/' },
    ],
    // One sidebar per part of the site: a guide page carries the guides' links, an API page the
    // API's, so no page renders the other part's hundreds of links.
    sidebar: {
      ...apiSidebars(),
      '/': guideSidebar(),
    },
  },
});

/**
 * The API's sidebars: the index lists the entry points, and a package's page carries only that
 * package's pages, so an API page weighs tens of links, not the 400-odd of the whole reference.
 * VitePress picks the deepest matching key, so `/api/@candor/core/testing/` wins over
 * `/api/@candor/core/`.
 */
function apiSidebars(): DefaultTheme.SidebarMulti {
  const entries = apiSidebar.map(({ text, link }) => ({
    text: text ?? '',
    link: link ?? '/api/',
  }));
  const head: DefaultTheme.SidebarItem[] = [
    { text: 'Guides', link: '/getting-started' },
  ];
  return {
    '/api/': [
      ...head,
      { text: 'API reference', link: '/api/', items: entries },
    ],
    ...Object.fromEntries(
      apiSidebar.map((entry) => [
        entry.link ?? '/api/',
        [
          ...head,
          { text: 'API reference', link: '/api/', items: entries },
          { ...entry, collapsed: false },
        ],
      ]),
    ),
  };
}

function guideSidebar(): DefaultTheme.SidebarItem[] {
  return [
    {
      text: 'Introduction',
      items: [{ text: 'Getting started', link: '/getting-started' }],
    },
    {
      text: 'Concepts',
      items: [
        { text: 'Outcomes', link: '/concepts/outcomes' },
        { text: 'Error codes', link: '/codes' },
        { text: 'The seam', link: '/concepts/seam' },
        { text: 'The breaker', link: '/concepts/breaker' },
        { text: 'The error budget', link: '/concepts/budget' },
        { text: 'What the model reads', link: '/concepts/model-view' },
        { text: 'Architecture', link: '/architecture' },
      ],
    },
    {
      text: 'Guides',
      items: [
        { text: 'Migrating string tools', link: '/migrating-string-tools' },
        { text: 'Built-in tools', link: '/builtins' },
        { text: 'Testing with the scripted server', link: '/guides/testing' },
        { text: 'Traces', link: '/guides/traces' },
        { text: 'Telemetry', link: '/guides/telemetry' },
        { text: 'MCP', link: '/guides/mcp' },
        { text: 'Framework adapters', link: '/guides/adapters' },
        { text: 'One breaker for a fleet', link: '/fleet' },
        { text: 'Benchmarks', link: '/benchmarks' },
      ],
    },
    {
      text: 'Packages',
      collapsed: true,
      items: packagePages.map((name) => ({
        text: `@candor/${name}`,
        link: `/packages/${name}`,
      })),
    },
    { text: 'API reference', link: '/api/' },
  ];
}
