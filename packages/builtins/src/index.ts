/**
 * First-party tools whose outcomes never lie: read_file, write_file, list_dir, search,
 * shell, http_fetch and calculator, each a `defineTool` with a zod input schema.
 *
 * @packageDocumentation
 * @module \@candor/builtins
 */
export {
  BUILTIN_TOOL_NAMES,
  createBuiltins,
  registerBuiltins,
} from './register-builtins.ts';
export type {
  BuiltinsOptions,
  BuiltinToolName,
  ToolSink,
} from './register-builtins.ts';
export { BUILTIN_ANNOTATIONS } from './builtin-annotations.ts';
export type { ToolAnnotationHints } from './builtin-annotations.ts';
export { WorkspaceGuard } from './workspace-guard.ts';
export type { GuardedPath } from './workspace-guard.ts';
export { readFileTool } from './read-file-tool.ts';
export type { ReadFileToolOptions } from './read-file-tool.ts';
export { BINARY_SNIFF_BYTES } from './binary-reason.ts';
export { writeFileTool } from './write-file-tool.ts';
export type { WriteFileToolOptions } from './write-file-tool.ts';
export { listDirTool } from './list-dir-tool.ts';
export type { DirEntry, ListDirToolOptions } from './list-dir-tool.ts';
export { searchTool } from './search-tool.ts';
export type { SearchEngineChoice, SearchToolOptions } from './search-tool.ts';
export type { SearchMatch } from './search-engine.ts';
export { DEFAULT_ENV_ALLOWLIST, shellTool } from './shell-tool.ts';
export type { ShellToolOptions } from './shell-tool.ts';
export { probeBubblewrap } from './bubblewrap.ts';
export type { IsolationSupport } from './bubblewrap.ts';
export { httpFetchTool } from './http-fetch-tool.ts';
export type { HttpFetchToolOptions } from './http-fetch-tool.ts';
export { calculatorTool, LARGE_RESULT } from './calculator-tool.ts';
export {
  evaluateExpression,
  MAX_EXPRESSION_LENGTH,
} from './evaluate-expression.ts';
