import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The generated API reference, as TypeDoc writes it with the repo's config and Candor's plugin
// (docs/.vitepress/typedoc-candor.mjs), into a temporary folder with a source URL of our own.
const root = join(import.meta.dirname, '..');
const sourceUrl = 'https://git.example.test/acme/candor';
const revision = 'v9.9.9';

/** Each barrel's names, runtime and type-only, as tests/barrel-exports.test.ts snapshots them. */
function barrelNames(): Map<string, string[]> {
  const snapshot = readFileSync(
    join(root, 'tests', '__snapshots__', 'barrel-exports.test.ts.snap'),
    'utf8',
  );
  const names = new Map<string, string[]>();
  for (const match of snapshot.matchAll(
    /'(@candor\/[\w/-]+)' exports exactly its known (?:names|types) 1`\] = `\n\[([^\]]*)\]/g,
  )) {
    const entry = match[1] ?? '';
    const listed = [...(match[2] ?? '').matchAll(/"([^"]+)"/g)].map(
      (name) => name[1] ?? '',
    );
    names.set(entry, [...(names.get(entry) ?? []), ...listed]);
  }
  return names;
}

/** Every file under a folder, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('the generated API reference', () => {
  let out = '';
  const names = barrelNames();

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), 'candor-api-'));
    await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules', 'typedoc', 'bin', 'typedoc'), '--out', out],
      {
        cwd: root,
        env: {
          ...process.env,
          CANDOR_SOURCE_URL: sourceUrl,
          CANDOR_SOURCE_REVISION: revision,
        },
      },
    );
  }, 120_000);

  afterAll(() => {
    if (out !== '') rmSync(out, { recursive: true, force: true });
  });

  it('reads the barrels from the snapshot (the checks below are not vacuous)', () => {
    expect(names.get('@candor/tools')).toEqual(
      expect.arrayContaining(['ToolResponse', 'defineTool', 'ToolOutcome']),
    );
    expect(names.get('@candor/core/testing')?.length).toBeGreaterThan(0);
    expect(names.size).toBeGreaterThanOrEqual(14);
  });

  it('lists every package and every export of its barrel, each with a summary', () => {
    const index = readFileSync(join(out, 'index.md'), 'utf8');
    const sections = new Map<string, string>();
    for (const section of index.split(/^## /m).slice(1)) {
      const entry = /^\[([^\]]+)\]/.exec(section)?.[1]?.replace(/\\/g, '');
      if (entry !== undefined) sections.set(entry, section);
    }
    const missing: string[] = [];
    for (const [entry, exported] of names) {
      const section = sections.get(entry);
      if (section === undefined) {
        missing.push(`${entry}: no section`);
        continue;
      }
      // The package's own summary, on the line after its heading.
      expect(section.split('\n')[2]?.trim(), entry).not.toBe('');
      const lines = new Map<string, string[]>();
      for (const line of section.matchAll(
        /^- \[((?:\\.|[^\]])+)\]\([^)]+\) \([a-z -]+\): (.*)$/gm,
      )) {
        const name = (line[1] ?? '').replace(/\\(.)/g, '$1');
        lines.set(name, [...(lines.get(name) ?? []), (line[2] ?? '').trim()]);
      }
      for (const name of exported) {
        const summaries = lines.get(name);
        if (summaries === undefined) missing.push(`${entry}: ${name}`);
        else if (summaries.some((summary) => summary === ''))
          missing.push(`${entry}: ${name} has no summary`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('links "Defined in" to the source on the configured host, at the configured revision', () => {
    const page = readFileSync(
      join(out, '@candor', 'tools', 'variables', 'ToolResponse.md'),
      'utf8',
    );
    expect(page).toMatch(
      new RegExp(
        `Defined in: \\[tools/src/tool-response\\.ts:(\\d+)\\]\\(${sourceUrl.replace(/[.]/g, '\\.')}/blob/${revision.replace(/[.]/g, '\\.')}/packages/tools/src/tool-response\\.ts#L\\1\\)`,
      ),
    );
  });

  it('renders an object type as its members', () => {
    const page = readFileSync(
      join(out, '@candor', 'tools', 'variables', 'ToolResponse.md'),
      'utf8',
    );
    const declaration = /^> \*\*ToolResponse\*\*: (.*)$/m.exec(page)?.[1];
    expect(declaration).not.toBe('`object`');
    for (const member of ['success', 'partial', 'error', 'denied', 'parse']) {
      expect(declaration).toContain(`\`${member}\`:`);
    }
  });

  it('shows no module-private name as a default value', () => {
    const leaks = filesUnder(out)
      .filter((file) => file.endsWith('.md'))
      .filter((file) =>
        /\bnoOptions\b|= `toolResponse(?:From|To)JSON`/.test(
          readFileSync(file, 'utf8'),
        ),
      );
    expect(leaks).toEqual([]);
    // The option is still optional, and literal defaults stay.
    const success = readFileSync(
      join(out, '@candor', 'tools', 'variables', 'ToolResponse.md'),
      'utf8',
    );
    expect(success).toContain('(`text`, `options?`) =>');
  });
});
