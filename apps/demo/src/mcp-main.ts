import { mcpSection } from './mcp-section.ts';
import { Output } from './output.ts';

const USAGE = 'usage: pnpm demo:mcp [--json]';

const argv = process.argv.slice(2);
const unknown = argv.filter((arg) => arg !== '--json');
if (unknown.length > 0) {
  process.stderr.write(`Unknown option ${unknown.join(' ')}\n${USAGE}\n`);
  process.exitCode = 2;
} else {
  const json = argv.includes('--json');
  await mcpSection(
    new Output({
      json,
      colour:
        !json && process.stdout.isTTY && process.env['NO_COLOR'] === undefined,
      write: (line) => process.stdout.write(`${line}\n`),
    }),
  );
}
