#!/usr/bin/env node
import { runCli } from './run-cli.ts';

// A reader that closes the pipe early (`candor-trace big.jsonl | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

// Ctrl-C ends --follow <file> like the end of a trace, so the summary still prints; other runs
// keep Node's default (exit at once).
const interrupt = new AbortController();
if (process.argv.some((arg) => arg.startsWith('--follow'))) {
  process.once('SIGINT', () => {
    interrupt.abort();
  });
}

process.exitCode = await runCli(process.argv.slice(2), {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  signal: interrupt.signal,
});
