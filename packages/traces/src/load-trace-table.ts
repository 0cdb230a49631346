import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  compileTraceTable,
  parseTraceTable,
  type TraceTable,
} from './parse-trace-table.ts';
import type { TraceTableDefinition } from './trace-table-schema.ts';
import { TraceTableError } from './trace-table-error.ts';

/**
 * Reads, validates and compiles one table file (JSON). This is how a fifth harness is taught:
 * write a table file and load it; no code changes.
 *
 * @throws {TraceTableError} when the file cannot be read, is not JSON, or fails validation; the
 * message names the file and the field.
 * @example
 * ```ts
 * const acme = loadTraceTable('./acme-agent.json');
 * const normaliser = new TraceNormaliser({ tables: [acme, ...builtinTraceTables()] });
 * ```
 */
export function loadTraceTable(file: string | URL): TraceTable {
  const { source, value } = readTableFile(file);
  return parseTraceTable(value, { source });
}

/**
 * One of the package's own tables, compiled without validation: parse-trace-table.test.ts
 * validates every shipped file and checks that validation changes nothing in it, so each
 * process need not pay for it again (it took two thirds of loading them).
 */
export function loadShippedTraceTable(file: URL): TraceTable {
  const { source, value } = readTableFile(file);
  return compileTraceTable(value as TraceTableDefinition, source);
}

function readTableFile(file: string | URL): { source: string; value: unknown } {
  const source = file instanceof URL ? fileURLToPath(file) : file;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error: unknown) {
    const reason =
      error instanceof Error && 'code' in error
        ? String(error.code)
        : String(error);
    throw new TraceTableError({
      source,
      problems: [{ field: '', message: `cannot read the file (${reason})` }],
      cause: error,
    });
  }
  try {
    return { source, value: JSON.parse(text) };
  } catch (error: unknown) {
    throw new TraceTableError({
      source,
      problems: [
        {
          field: '',
          message: `is not valid JSON (${error instanceof Error ? error.message : String(error)})`,
        },
      ],
      cause: error,
    });
  }
}
