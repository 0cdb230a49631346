// What a user's program does with @candor/mcp: start the installed candor-mcp command as an MCP
// server over stdio, import its tools into a registry with the official SDK client, and call
// them through the registry. Prints one JSON line per call.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { importMcpTools } from '@candor/mcp';
import { ToolRegistry } from '@candor/registry';

const require = createRequire(import.meta.url);
const manifestPath = require.resolve('@candor/mcp/package.json');
const { bin } = require(manifestPath);
const cli = join(dirname(manifestPath), bin['candor-mcp']);

const registry = new ToolRegistry();
const imported = await importMcpTools(
  { stdio: { command: process.execPath, args: [cli] } },
  registry,
  { reconnect: false },
);
try {
  for (const expression of ['2 + 3 * 4', '1 / 0']) {
    const response = await registry.call('calculator', { expression });
    console.log(
      JSON.stringify({
        expression,
        status: response.status,
        text: response.text,
        ...(response.status === 'error'
          ? { code: response.errorInfo.code }
          : {}),
      }),
    );
  }
} finally {
  await imported.close();
  registry.shutdown();
}
