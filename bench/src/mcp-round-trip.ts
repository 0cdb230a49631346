/**
 * The MCP row: a `tools/call` round trip over stdio through `serveRegistry`, against the same tool
 * served with the official SDK's own `McpServer.registerTool`, as a ratio in one run. Both servers
 * are child processes started the same way (tsx for the small server file, Candor from its built
 * `dist` as users run it); one SDK client drives each, in interleaved rounds, timed on the wall
 * clock because the work is split across processes.
 *
 * `pnpm --filter @candor/bench bench:mcp [--quick]`
 */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { judgeGoal } from './goal.ts';
import { median } from './measure-tasks.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 5 : 30;
const CALLS_PER_ROUND = quick ? 50 : 300;
const WARM_UP_CALLS = quick ? 50 : 500;

async function start(file: string): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [
        '--import',
        'tsx',
        // No @candor/source condition: Candor resolves to dist, built by the bench:mcp script.
        fileURLToPath(new URL(file, import.meta.url)),
      ],
      stderr: 'inherit',
    }),
  );
  return client;
}

async function roundTrips(client: Client, calls: number): Promise<number> {
  const started = process.hrtime.bigint();
  for (let index = 0; index < calls; index++) {
    const result = await client.callTool({
      name: 'add',
      arguments: { a: index, b: 1 },
    });
    const block = result.content[0];
    // Checked, not assumed: a server that answers wrongly must not be timed as fast.
    if (block?.type !== 'text' || block.text !== String(index + 1)) {
      throw new Error(`wrong answer: ${JSON.stringify(result)}`);
    }
  }
  return Number(process.hrtime.bigint() - started) / calls;
}

const candor = await start('./mcp-candor-server.ts');
const sdk = await start('./mcp-sdk-server.ts');
try {
  await roundTrips(candor, WARM_UP_CALLS);
  await roundTrips(sdk, WARM_UP_CALLS);
  const ratios: number[] = [];
  const candorNs: number[] = [];
  const sdkNs: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always runs on a warmer machine.
    const first = round % 2 === 0;
    const a = first ? await roundTrips(candor, CALLS_PER_ROUND) : 0;
    const b = await roundTrips(sdk, CALLS_PER_ROUND);
    const c = first ? a : await roundTrips(candor, CALLS_PER_ROUND);
    candorNs.push(c);
    sdkNs.push(b);
    ratios.push(c / b);
  }
  const verdict = judgeGoal(
    {
      label: 'serveRegistry tools/call ÷ McpServer.registerTool (stdio)',
      direction: 'at-most',
      limit: 1.2,
      unit: '×',
    },
    median(ratios),
  );
  const us = (ns: number): string => `${(ns / 1000).toFixed(1)} µs`;
  process.stdout.write(
    [
      `| row | Candor | SDK McpServer | ratio | goal |`,
      `| --- | --- | --- | --- | --- |`,
      `| MCP tools/call over stdio (${ROUNDS} rounds × ${CALLS_PER_ROUND} calls) | ${us(median(candorNs))} | ${us(median(sdkNs))} | ${verdict.value.toFixed(2)}× | ≤ ${verdict.limit}× ${verdict.met ? 'met' : 'NOT met'} |`,
      '',
    ].join('\n'),
  );
} finally {
  await candor.close();
  await sdk.close();
}
