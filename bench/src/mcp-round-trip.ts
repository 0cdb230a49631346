/**
 * The MCP row: a `tools/call` round trip over stdio through `serveRegistry`, against the same tool
 * served with the official SDK's own `McpServer.registerTool`, as a ratio in one run. Both servers
 * are served through the SDK's `serveStdio` entry point (the v2 way, which speaks the 2026-07-28
 * protocol as well as 2025's), so the ratio is what Candor adds, not the entry point's own routing.
 * Both are child processes started the same way (tsx for the small server file, Candor from its built
 * `dist` as users run it); one SDK client drives each, in interleaved rounds, timed on the wall
 * clock because the work is split across processes. On Linux it also reads each server's own CPU
 * time over the timed rounds (`/proc/<pid>/stat`): on a loaded machine the wall clock mostly
 * measures the scheduler, while CPU time per call still shows what each server does.
 *
 * `pnpm --filter @candor/bench bench:mcp [--quick]`
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { judgeGoal } from './goal.ts';
import { median } from './measure-tasks.ts';

const quick = process.argv.includes('--quick');
const ROUNDS = quick ? 5 : 30;
const CALLS_PER_ROUND = quick ? 50 : 300;
const WARM_UP_CALLS = quick ? 50 : 500;

interface Served {
  readonly client: Client;
  readonly pid: number | null;
}

async function start(file: string): Promise<Served> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      // No @candor/source condition: Candor resolves to dist, built by the bench:mcp script.
      fileURLToPath(new URL(file, import.meta.url)),
    ],
    stderr: 'inherit',
  });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

const ticksPerSecond = ((): number | undefined => {
  if (process.platform !== 'linux') return undefined;
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  } catch {
    return undefined;
  }
})();

/** A process's user + system CPU time in µs, where the OS shows it (Linux), else undefined. */
function cpuMicros(pid: number | null): number | undefined {
  if (pid === null || ticksPerSecond === undefined) return undefined;
  try {
    // Fields after the command name: state is 3rd, utime 14th, stime 15th (proc(5)).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks / ticksPerSecond) * 1e6 : undefined;
  } catch {
    return undefined;
  }
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
  await roundTrips(candor.client, WARM_UP_CALLS);
  await roundTrips(sdk.client, WARM_UP_CALLS);
  const ratios: number[] = [];
  const candorNs: number[] = [];
  const sdkNs: number[] = [];
  const cpuBefore = [cpuMicros(candor.pid), cpuMicros(sdk.pid)];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so neither always runs on a warmer machine.
    const first = round % 2 === 0;
    const a = first ? await roundTrips(candor.client, CALLS_PER_ROUND) : 0;
    const b = await roundTrips(sdk.client, CALLS_PER_ROUND);
    const c = first ? a : await roundTrips(candor.client, CALLS_PER_ROUND);
    candorNs.push(c);
    sdkNs.push(b);
    ratios.push(c / b);
  }
  const calls = ROUNDS * CALLS_PER_ROUND;
  const cpuPerCall = (before: number | undefined, pid: number | null) => {
    const after = cpuMicros(pid);
    return before === undefined || after === undefined
      ? undefined
      : (after - before) / calls;
  };
  const candorCpu = cpuPerCall(cpuBefore[0], candor.pid);
  const sdkCpu = cpuPerCall(cpuBefore[1], sdk.pid);
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
  const cpuRow =
    candorCpu === undefined || sdkCpu === undefined || sdkCpu === 0
      ? []
      : [
          `| server CPU per call (all ${calls} timed calls) | ${candorCpu.toFixed(1)} µs | ${sdkCpu.toFixed(1)} µs | ${(candorCpu / sdkCpu).toFixed(2)}× | (not the goal) |`,
        ];
  process.stdout.write(
    [
      `| row | Candor | SDK McpServer | ratio | goal |`,
      `| --- | --- | --- | --- | --- |`,
      `| MCP tools/call over stdio (${ROUNDS} rounds × ${CALLS_PER_ROUND} calls) | ${us(median(candorNs))} | ${us(median(sdkNs))} | ${verdict.value.toFixed(2)}× | ≤ ${verdict.limit}× ${verdict.met ? 'met' : 'NOT met'} |`,
      ...cpuRow,
      '',
    ].join('\n'),
  );
} finally {
  await candor.client.close();
  await sdk.client.close();
}
