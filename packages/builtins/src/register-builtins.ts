import { type AnyToolDefinition } from '@candor/tools';
import { calculatorTool } from './calculator-tool.ts';
import { type HttpFetchToolOptions, httpFetchTool } from './http-fetch-tool.ts';
import { type ListDirToolOptions, listDirTool } from './list-dir-tool.ts';
import { type ReadFileToolOptions, readFileTool } from './read-file-tool.ts';
import { type SearchToolOptions, searchTool } from './search-tool.ts';
import { type ShellToolOptions, shellTool } from './shell-tool.ts';
import { writeFileTool } from './write-file-tool.ts';

/**
 * Anything tools can be registered with: `ToolRegistry` from `@candor/registry` fits, without
 * this package depending on it.
 */
export interface ToolSink {
  /** Adds one tool; the return value is ignored. */
  register(tool: AnyToolDefinition): unknown;
}

/** The names of the built-in tools. */
export const BUILTIN_TOOL_NAMES = Object.freeze([
  'read_file',
  'write_file',
  'list_dir',
  'search',
  'shell',
  'http_fetch',
  'calculator',
] as const);

/** One of {@link BUILTIN_TOOL_NAMES}. */
export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

/** Options of {@link registerBuiltins} and {@link createBuiltins}. */
export interface BuiltinsOptions {
  /** The workspace root: every file path and every shell cwd resolves inside it. */
  readonly root: string;
  /** Which tools to create; all of them by default. */
  readonly include?: readonly BuiltinToolName[];
  readonly readFile?: Omit<ReadFileToolOptions, 'root'>;
  readonly listDir?: Omit<ListDirToolOptions, 'root'>;
  readonly search?: Omit<SearchToolOptions, 'root'>;
  readonly shell?: Omit<ShellToolOptions, 'root'>;
  readonly httpFetch?: HttpFetchToolOptions;
}

/** Creates the built-in tools without registering them. */
export function createBuiltins(options: BuiltinsOptions): AnyToolDefinition[] {
  const wanted = new Set<string>(options.include ?? BUILTIN_TOOL_NAMES);
  for (const name of wanted) {
    if (!(BUILTIN_TOOL_NAMES as readonly string[]).includes(name)) {
      throw new TypeError(
        `createBuiltins: unknown tool ${JSON.stringify(name)}; expected some of ${BUILTIN_TOOL_NAMES.join(', ')}`,
      );
    }
  }
  const { root } = options;
  const factories: Record<BuiltinToolName, () => AnyToolDefinition> = {
    read_file: () => readFileTool({ ...options.readFile, root }),
    write_file: () => writeFileTool({ root }),
    list_dir: () => listDirTool({ ...options.listDir, root }),
    search: () => searchTool({ ...options.search, root }),
    shell: () => shellTool({ ...options.shell, root }),
    http_fetch: () => httpFetchTool(options.httpFetch),
    calculator: () => calculatorTool(),
  };
  return BUILTIN_TOOL_NAMES.filter((name) => wanted.has(name)).map((name) =>
    factories[name](),
  );
}

/**
 * Registers the built-in tools in one call and returns them.
 *
 * @example
 * ```ts
 * const registry = new ToolRegistry();
 * registerBuiltins(registry, {
 *   root: process.cwd(),
 *   include: ['read_file', 'list_dir', 'search'],
 * });
 * ```
 */
export function registerBuiltins(
  registry: ToolSink,
  options: BuiltinsOptions,
): AnyToolDefinition[] {
  const tools = createBuiltins(options);
  for (const tool of tools) registry.register(tool);
  return tools;
}
