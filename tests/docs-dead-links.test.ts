import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// The docs build fails on a dead link from an included README: a two-page site laid out like
// the repo's (docs/ and packages/<name>/README.md beside it), built by the real `vitepress build`
// with the same markdown hook as docs/.vitepress/config.ts. One README link is dead per case, and
// each case asserts the dead-link error itself, so a build failing for another reason fails the
// test. The control is the real site: `pnpm docs:build` builds it with these checks on (0 dead
// links). A fixture with a live link builds too, but a third build would double the test's time.
const root = join(import.meta.dirname, '..');
const vitepress = join(
  root,
  'node_modules',
  'vitepress',
  'bin',
  'vitepress.js',
);
const hook = join(root, 'docs', '.vitepress', 'included-links.ts');
const made: string[] = [];

afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

interface Build {
  readonly ok: boolean;
  readonly output: string;
}

/** Builds a site whose one package page includes a README with the given link. */
async function buildWithReadmeLink(href: string): Promise<Build> {
  // Inside the repo (test-results/ is not committed), so the site resolves vue and vitepress.
  mkdirSync(join(root, 'test-results'), { recursive: true });
  const dir = mkdtempSync(join(root, 'test-results', 'dead-links-'));
  made.push(dir);
  const docs = join(dir, 'docs');
  mkdirSync(join(docs, '.vitepress'), { recursive: true });
  mkdirSync(join(docs, 'packages'), { recursive: true });
  mkdirSync(join(dir, 'packages', 'demo'), { recursive: true });
  writeFileSync(
    join(docs, '.vitepress', 'config.ts'),
    [
      `import { includedLinks } from ${JSON.stringify(hook)};`,
      `export default {`,
      `  title: 'fixture',`,
      `  ignoreDeadLinks: false,`,
      `  markdown: { config: includedLinks(${JSON.stringify(docs)}) },`,
      `};`,
      '',
    ].join('\n'),
  );
  writeFileSync(join(docs, 'index.md'), '# Home\n\n[Guide](/guide)\n');
  writeFileSync(join(docs, 'guide.md'), '# Guide\n');
  writeFileSync(
    join(docs, 'packages', 'demo.md'),
    '<!--@include: ../../packages/demo/README.md-->\n',
  );
  writeFileSync(
    join(dir, 'packages', 'demo', 'README.md'),
    `# demo\n\nSee [the guide](${href}).\n`,
  );
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [vitepress, 'build', docs],
      { cwd: root, env: { ...process.env, NO_COLOR: '1' } },
    );
    return { ok: true, output: `${stdout}${stderr}` };
  } catch (error: unknown) {
    const { stdout = '', stderr = '' } = error as {
      stdout?: string;
      stderr?: string;
    };
    return { ok: false, output: `${stdout}${stderr}` };
  }
}

describe('the docs build and links from included READMEs', () => {
  it('fails on a relative link to a docs page that does not exist', async () => {
    const build = await buildWithReadmeLink('../../docs/no-such-page.md');
    expect(build.ok).toBe(false);
    expect(build.output).toMatch(
      /dead link in packages\/demo\.md \(from packages\/demo\/README\.md\): \.\.\/\.\.\/docs\/no-such-page\.md/,
    );
  }, 60_000);

  it("fails on a site link VitePress's own check finds dead", async () => {
    const build = await buildWithReadmeLink('/no-such-page');
    expect(build.ok).toBe(false);
    expect(build.output).toMatch(
      /Found dead link \/no-such-page in file packages\/demo\.md/,
    );
  }, 60_000);
});
