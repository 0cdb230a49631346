// A project whose zod is zod 3: importing Candor (in the README's order) must fail with an error
// that names the zod found and the zod needed. Should the import pass, a tool defined with the
// project's zod must be refused instead. Prints one JSON line: where it threw, and the message.
function report(stage, error) {
  console.log(
    JSON.stringify({
      threw: stage !== undefined,
      stage,
      message: error instanceof Error ? error.message : String(error),
    }),
  );
}

let tools;
try {
  await import('@candor/registry');
  tools = await import('@candor/tools');
} catch (error) {
  report('import', error);
  process.exit(0);
}
const { z } = await import('zod');
try {
  tools.defineTool({
    name: 'divide',
    description: 'Divides a by b',
    input: z.object({ a: z.number(), b: z.number() }),
    run: ({ a, b }) => tools.ToolResponse.success(String(a / b)),
  });
  report(undefined, 'defineTool accepted a zod 3 schema');
} catch (error) {
  report('defineTool', error);
}
