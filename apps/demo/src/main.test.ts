import { execFile } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const demoRoot = dirname(dirname(fileURLToPath(import.meta.url)));

describe('pnpm demo', () => {
  it('prints one response of each outcome, from real work', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--conditions=@candor/source', 'src/main.ts'],
      { cwd: demoRoot },
    );
    expect(stdout).toContain('✓ read package.json: SUCCESS');
    expect(stdout).toContain(
      '⚠ read README.md, 2 lines max: PARTIAL (reason: truncated)',
    );
    expect(stdout).toContain('✗ read a missing file: ERROR NOT_FOUND');
    expect(stdout).toContain('✗ read with maxLines = -1: ERROR INVALID_PARAM');
    expect(stdout).toContain(
      '⊘ read, but the user says no: DENIED ACCESS_DENIED',
    );
    expect(stdout).toContain('"data":{"path":"package.json","totalLines":');
    expect(stdout).not.toMatch(/\n\s+at /);
  });
});
