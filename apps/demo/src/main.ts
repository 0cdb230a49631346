import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { calculatorTool } from '@candor/builtins';
import { ToolRegistry } from '@candor/registry';
import { agentSection, demoModel } from './agent-section.ts';
import { breakerSection } from './breaker-section.ts';
import { calculatorSection } from './calculator-section.ts';
import { codingAgentSection } from './coding-agent-section.ts';
import { legacySection } from './legacy-section.ts';
import { modelFromEnv } from './model-from-env.ts';
import { Output } from './output.ts';

const USAGE = 'usage: pnpm demo [--json]';

async function main(argv: readonly string[]): Promise<number> {
  const unknown = argv.filter((arg) => arg !== '--json');
  if (unknown.length > 0) {
    process.stderr.write(`Unknown option ${unknown.join(' ')}\n${USAGE}\n`);
    return 2;
  }
  const json = argv.includes('--json');
  let model;
  try {
    model = modelFromEnv(process.env);
  } catch (error: unknown) {
    process.stderr.write(
      `${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 2;
  }
  const output = new Output({
    json,
    colour:
      !json && process.stdout.isTTY && process.env['NO_COLOR'] === undefined,
    write: (line) => process.stdout.write(`${line}\n`),
  });
  if (!json) {
    process.stdout.write(
      'Candor demo: every tool call ends as success, partial or error, and says which.\n',
    );
  }
  const registry = new ToolRegistry();
  registry.register(calculatorTool());
  try {
    await calculatorSection(output, registry);
    await legacySection(
      output,
      dirname(dirname(fileURLToPath(import.meta.url))),
    );
    await breakerSection(output);
    await agentSection(output, {
      registry,
      model: model ?? demoModel(),
      live: model !== undefined,
    });
    await codingAgentSection(output);
  } finally {
    registry.shutdown();
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
