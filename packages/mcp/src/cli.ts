#!/usr/bin/env node
import { runServeBuiltins } from './serve-builtins-cli.ts';

// stdout belongs to the MCP protocol on stdio: every message of ours goes to stderr.
const code = await runServeBuiltins(process.argv.slice(2), {
  stderr: process.stderr,
});
if (code !== undefined) process.exitCode = code;
