import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolRegistry } from '@candor/registry';
import { outcomeOf } from '@candor/tools';
import { afterAll, describe, expect, it } from 'vitest';
import { read_file as step0 } from './step-0-string-tool.ts';
import { read_file as step1 } from './step-1-response-type.ts';
import { read_file as step2 } from './step-2-success-data.ts';
import { readFileTool as step3 } from './step-3-precise-errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'candor-migration-'));
const present = join(dir, 'notes.txt');
writeFileSync(present, 'one\ntwo\nthree');
const missing = join(dir, 'missing.txt');

const registry = new ToolRegistry({ breaker: false });
registry.register(step0, { name: 'step0' });
registry.register(step1, { name: 'step1' });
registry.register(step2, { name: 'step2' });
registry.register(step3);
afterAll(() => {
  registry.shutdown();
});

describe('the migration of a string tool, step by step, through the registry', () => {
  it('step 0 reports SUCCESS for a missing file: the bug the migration fixes', async () => {
    const response = await registry.call('step0', { path: missing });
    expect(outcomeOf(response)).toBe('success');
    expect(response.text).toBe(`Error: file not found: ${missing}`);
  });

  it('steps 1 and 2 change types and add data, but still call a missing file a success', async () => {
    expect(outcomeOf(await registry.call('step1', { path: missing }))).toBe(
      'success',
    );
    const step2Missing = await registry.call('step2', { path: missing });
    expect(outcomeOf(step2Missing)).toBe('success');
    const step2Present = await registry.call('step2', { path: present });
    expect(step2Present.data).toEqual({ path: present, lines: 3 });
  });

  it('step 3 reports NOT_FOUND for a missing file, IS_DIRECTORY for a folder, and data on success', async () => {
    const notFound = await registry.call('read_file', { path: missing });
    expect(notFound.status === 'error' && notFound.errorInfo.code).toBe(
      'NOT_FOUND',
    );
    const directory = await registry.call('read_file', { path: dir });
    expect(directory.status === 'error' && directory.errorInfo.code).toBe(
      'IS_DIRECTORY',
    );
    const ok = await registry.call('read_file', { path: present });
    expect(ok).toMatchObject({
      status: 'success',
      text: 'one\ntwo\nthree',
      data: { path: present, totalLines: 3 },
    });
  });

  it('step 3 returns a cut result as PARTIAL with its reason', async () => {
    const cut = await registry.call('read_file', {
      path: present,
      maxLines: 2,
    });
    expect(cut).toMatchObject({
      status: 'partial',
      reason: 'truncated',
      text: 'one\ntwo',
      data: { returnedLines: 2, totalLines: 3 },
    });
  });

  it('list() shows which tools are still legacy', () => {
    expect(registry.list().map(({ name, kind }) => `${name}:${kind}`)).toEqual([
      'step0:legacy',
      'step1:legacy',
      'step2:legacy',
      'read_file:structured',
    ]);
  });
});
