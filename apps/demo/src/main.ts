import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyError } from '@candor/errors';
import { outcomeOf, ToolResponse } from '@candor/tools';
import { readLinesTool } from './read-lines-tool.ts';

const demoRoot = dirname(dirname(fileURLToPath(import.meta.url)));
const tool = readLinesTool(demoRoot);
const marks = { success: '✓', partial: '⚠', error: '✗', denied: '⊘' } as const;

async function call(args: unknown, approved = true): Promise<ToolResponse> {
  if (!approved)
    return ToolResponse.denied('The user declined this call; it did not run.');
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    const { code, message } = classifyError(parsed.error);
    return ToolResponse.error(code, message);
  }
  const controller = new AbortController();
  return tool.run(parsed.data, {
    signal: controller.signal,
    callId: 'demo',
    toolName: tool.name,
  });
}

function show(label: string, response: ToolResponse): void {
  const outcome = outcomeOf(response);
  const firstLine = response.text.split('\n')[0] ?? '';
  const code = response.status === 'error' ? ` ${response.errorInfo.code}` : '';
  const reason =
    response.status === 'partial' ? ` (reason: ${response.reason})` : '';
  console.log(
    `${marks[outcome]} ${label}: ${outcome.toUpperCase()}${code}${reason}`,
  );
  console.log(`    model reads: ${JSON.stringify(firstLine.slice(0, 70))}`);
  // Every response survives the wire: validate it and round-trip it through JSON.
  const back = ToolResponse.fromJSON(ToolResponse.toJSON(response));
  console.log(
    `    wire: ${JSON.stringify({ status: back.status, data: back.data })}`,
  );
}

console.log('Candor: one tool, four outcomes, no "Error:" strings.\n');
show('read package.json', await call({ path: 'package.json', maxLines: 100 }));
show(
  'read README.md, 2 lines max',
  await call({ path: 'README.md', maxLines: 2 }),
);
show('read a missing file', await call({ path: 'missing.txt' }));
show(
  'read with maxLines = -1',
  await call({ path: 'README.md', maxLines: -1 }),
);
show('read, but the user says no', await call({ path: '.env' }, false));
