// The ESM consumer again as CommonJS: `require()` of the ESM-only packages, which Node 20.19
// and later load synchronously. Prints the same JSON line.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { defineTool, ToolResponse } = require('@candor/tools');
const { z } = require('zod');

const { dependencies = {} } = JSON.parse(
  readFileSync(join(__dirname, 'package.json'), 'utf8'),
);
// Required only when installed: a failing require of an installed package must fail the run.
const registryModule =
  '@candor/registry' in dependencies ? require('@candor/registry') : undefined;
const builtinsModule =
  '@candor/builtins' in dependencies ? require('@candor/builtins') : undefined;

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

async function main() {
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
    JSON.stringify({ node: process.version, module: 'commonjs', path, calls }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
