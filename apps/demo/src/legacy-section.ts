import { join } from 'node:path';
import { ToolRegistry } from '@candor/registry';
import { read_file } from './migration/step-0-string-tool.ts';
import { readFileTool } from './migration/step-3-precise-errors.ts';
import { type Output } from './output.ts';

/** A legacy string tool says "Error: …" and is still a SUCCESS; the migrated tool says NOT_FOUND. */
export async function legacySection(
  output: Output,
  root: string,
): Promise<void> {
  output.section('A legacy string tool, before and after migration');
  const registry = new ToolRegistry({ breaker: false });
  registry.register(read_file, { name: 'legacy_read_file' });
  registry.register(readFileTool);
  const missing = join(root, 'no-such-file.txt');
  output.response(
    'legacy_read_file (auto-wrapped function)',
    await registry.call('legacy_read_file', { path: missing }),
  );
  output.note(
    'The function returned normally, so it succeeded: its text is never scanned for "Error:".',
  );
  output.response(
    'read_file (migrated, step 3)',
    await registry.call('read_file', { path: missing }),
  );
  output.note(
    `registry.list(): ${registry
      .list()
      .map((tool) => `${tool.name} is ${tool.kind}`)
      .join(', ')}`,
  );
  registry.shutdown();
}
