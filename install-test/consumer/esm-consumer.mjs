// What a user's ESM program does after installing Candor: register a plain function and a
// defineTool tool, call both, and print the statuses as one JSON line. Until @candor/registry
// exports ToolRegistry it calls the tools directly and says so in `path`.
import { readFileSync } from 'node:fs';
import { defineTool, ToolResponse } from '@candor/tools';
import { z } from 'zod';

const { dependencies = {} } = JSON.parse(
  readFileSync(new URL('package.json', import.meta.url), 'utf8'),
);
// Imported only when installed: a failing import of an installed package must fail the run.
const registryModule =
  '@candor/registry' in dependencies
    ? await import('@candor/registry')
    : undefined;
const builtinsModule =
  '@candor/builtins' in dependencies
    ? await import('@candor/builtins')
    : undefined;

function add({ a, b }) {
  return a + b;
}

const divide = defineTool({
  name: 'divide',
  description: 'Divides a by b',
  input: z.object({ a: z.number(), b: z.number() }),
  run: ({ a, b }) =>
    b === 0
      ? ToolResponse.error('INVALID_PARAM', 'b must not be zero')
      : ToolResponse.success(String(a / b), { data: a / b }),
});

const summarise = (tool, response) => ({
  tool,
  status: response.status,
  code: response.status === 'error' ? response.errorInfo.code : null,
  text: response.text,
});

const calls = [];
let path;
if (typeof registryModule?.ToolRegistry === 'function') {
  path = 'registry';
  const registry = new registryModule.ToolRegistry();
  registry.register(add).register(divide);
  calls.push(summarise('add', await registry.call('add', { a: 2, b: 3 })));
  calls.push(
    summarise('divide', await registry.call('divide', { a: 6, b: 3 })),
  );
  calls.push(
    summarise('divide', await registry.call('divide', { a: 1, b: 0 })),
  );
  if (builtinsModule !== undefined) {
    registry.register(builtinsModule.calculatorTool());
    calls.push(
      summarise(
        'calculator',
        await registry.call('calculator', { expression: '2 + 3 * 4' }),
      ),
    );
  }
  registry.shutdown();
} else {
  path = 'tools';
  const context = (toolName) => ({
    signal: new AbortController().signal,
    callId: `call_${toolName}`,
    toolName,
  });
  const sum = add({ a: 2, b: 3 });
  calls.push(
    summarise('add', ToolResponse.success(String(sum), { data: sum })),
  );
  calls.push(
    summarise('divide', await divide.run({ a: 6, b: 3 }, context('divide'))),
  );
  calls.push(
    summarise('divide', await divide.run({ a: 1, b: 0 }, context('divide'))),
  );
  if (builtinsModule !== undefined) {
    const calculator = builtinsModule.calculatorTool();
    calls.push(
      summarise(
        'calculator',
        await calculator.run(
          { expression: '2 + 3 * 4' },
          context('calculator'),
        ),
      ),
    );
  }
}

console.log(
  JSON.stringify({ node: process.version, module: 'esm', path, calls }),
);
