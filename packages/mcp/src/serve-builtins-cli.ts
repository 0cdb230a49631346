import { parseArgs } from 'node:util';
import { registerBuiltins } from '@candor/builtins';
import { ToolRegistry } from '@candor/registry';
import { serveRegistry } from './serve-registry.ts';

const USAGE = `Usage: candor-mcp [--workspace DIR] [--http [--host H] [--port N] [--token T]]

Serves Candor's built-in tools (read_file, write_file, list_dir, search, shell, http_fetch,
calculator) over MCP: on stdin/stdout by default, or Streamable HTTP with --http.
  --workspace DIR  the folder every path and shell command stays inside (default: the cwd)
  --http           serve http://127.0.0.1:PORT/mcp instead of stdio
  --host H         bind to H instead of 127.0.0.1
  --port N         listen on N (default: any free port, printed on stderr)
  --token T        require "Authorization: Bearer T" (or set CANDOR_MCP_TOKEN)
`;

/** The streams {@link runServeBuiltins} writes its messages to. */
export interface CliStreams {
  readonly stderr: NodeJS.WritableStream;
}

/**
 * The `candor-mcp` command: parses the arguments and serves the built-in tools. Resolves with the
 * exit code for bad arguments, or with `undefined` once serving (the process then lives on).
 */
export async function runServeBuiltins(
  argv: readonly string[],
  streams: CliStreams,
): Promise<number | undefined> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        workspace: { type: 'string' },
        http: { type: 'boolean' },
        host: { type: 'string' },
        port: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (error: unknown) {
    streams.stderr.write(
      `candor-mcp: ${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`,
    );
    return 2;
  }
  if (values.help === true) {
    streams.stderr.write(USAGE);
    return 0;
  }
  const port = values.port === undefined ? 0 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    streams.stderr.write(
      `candor-mcp: --port must be a port number, got ${JSON.stringify(values.port)}\n`,
    );
    return 2;
  }
  if (values.token === '') {
    // `--token "$CANDOR_MCP_TOKEN"` with the variable unset: serving without a check would be
    // the opposite of what was asked.
    streams.stderr.write(
      `candor-mcp: --token is empty (is the variable you passed set?)\n`,
    );
    return 2;
  }
  const registry = new ToolRegistry();
  registerBuiltins(registry, { root: values.workspace ?? process.cwd() });
  if (values.http !== true) {
    await serveRegistry(registry, { transport: 'stdio' });
    return undefined;
  }
  const token = values.token ?? process.env['CANDOR_MCP_TOKEN'];
  const service = await serveRegistry(registry, {
    transport: 'http',
    ...(values.host === undefined ? {} : { host: values.host }),
    port,
    ...(token === undefined || token === '' ? {} : { bearerToken: token }),
  });
  streams.stderr.write(`candor-mcp: serving ${String(service.url)}\n`);
  return undefined;
}
