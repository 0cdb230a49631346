#!/usr/bin/env node
import { runFleetCli } from './run-fleet-cli.ts';

process.exitCode = await runFleetCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
});
