import { describe, expect, it } from 'vitest';
import { BUILTIN_ANNOTATIONS } from './builtin-annotations.ts';
import { BUILTIN_TOOL_NAMES, createBuiltins } from './register-builtins.ts';

describe('BUILTIN_ANNOTATIONS', () => {
  it('annotates every builtin with a title and all four hints', () => {
    expect(Object.keys(BUILTIN_ANNOTATIONS).sort()).toEqual(
      [...BUILTIN_TOOL_NAMES].sort(),
    );
    for (const hints of Object.values(BUILTIN_ANNOTATIONS)) {
      expect(hints.title).not.toBe('');
      expect(Object.keys(hints).sort()).toEqual([
        'destructiveHint',
        'idempotentHint',
        'openWorldHint',
        'readOnlyHint',
        'title',
      ]);
    }
  });

  it('marks only the tools that change nothing as read-only', () => {
    const readOnly = Object.entries(BUILTIN_ANNOTATIONS)
      .filter(([, hints]) => hints.readOnlyHint)
      .map(([name]) => name)
      .sort();
    expect(readOnly).toEqual(['calculator', 'list_dir', 'read_file', 'search']);
    expect(BUILTIN_ANNOTATIONS.shell.destructiveHint).toBe(true);
    expect(BUILTIN_ANNOTATIONS.write_file.destructiveHint).toBe(true);
  });

  it('is what each builtin declares on its own definition, idempotentHint from idempotent', () => {
    for (const tool of createBuiltins({ root: process.cwd() })) {
      const name = tool.name as keyof typeof BUILTIN_ANNOTATIONS;
      expect(tool.annotations).toEqual(BUILTIN_ANNOTATIONS[name]);
      expect(BUILTIN_ANNOTATIONS[name].idempotentHint).toBe(
        tool.idempotent === true,
      );
    }
  });
});
