// The built-in tools served over MCP (stdio) by the `candor-mcp` CLI, and a client that imports
// them into its own registry through the official MCP SDK. The same server is what Claude Code
// runs: claude mcp add candor -- npx candor-mcp --workspace /path/to/your/project
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { importMcpTools } from '@candor/mcp';
import { ToolRegistry } from '@candor/registry';

const workspace = join(import.meta.dirname, 'workspace');
// The CLI's own file, as its package.json names it, run by this Node: node_modules/.bin holds a
// symlink to it under npm but a shell script under pnpm, which Node cannot run.
const mcpDir = join(import.meta.dirname, 'node_modules', '@candor', 'mcp');
const { bin: bins } = JSON.parse(
  readFileSync(join(mcpDir, 'package.json'), 'utf8'),
) as { bin: Record<string, string> };
const bin = join(mcpDir, bins['candor-mcp'] ?? 'bin/candor-mcp.js');
const registry = new ToolRegistry();
const imported = await importMcpTools(
  {
    stdio: { command: process.execPath, args: [bin, '--workspace', workspace] },
  },
  registry,
  { prefix: 'candor_' },
);
console.log(`imported: ${[...imported.tools].sort().join(', ')}`);

const calls: [string, Record<string, unknown>][] = [
  ['candor_read_file', { path: 'hello.txt' }],
  ['candor_read_file', { path: 'missing.txt' }],
  ['candor_read_file', { path: '../../package.json' }],
  ['candor_calculator', { expression: '17 * 3' }],
];
try {
  for (const [tool, args] of calls) {
    const response = await registry.call(tool, args);
    const detail =
      response.status === 'error'
        ? response.errorInfo.code
        : response.text.trim();
    console.log(
      `${tool} ${JSON.stringify(args)} → ${response.status} ${detail}`,
    );
  }
} finally {
  await imported.close();
  registry.shutdown();
}
