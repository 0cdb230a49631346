// Runs write_file or list_dir in a child process whose user cannot bypass file modes (see
// hardening.test.ts). Usage: call-as-nobody.ts <write_file|list_dir> <root> <arguments as JSON>.
import { listDirTool } from '../list-dir-tool.ts';
import { writeFileTool } from '../write-file-tool.ts';
import { callTool } from './call-tool.ts';

const [tool, root, args] = process.argv.slice(2);
if (root === undefined || args === undefined) {
  throw new TypeError('usage: call-as-nobody.ts <tool> <root> <json>');
}
const tools = { write_file: writeFileTool, list_dir: listDirTool } as const;
if (tool !== 'write_file' && tool !== 'list_dir') {
  throw new TypeError(`unknown tool ${String(tool)}`);
}
const response = await callTool(tools[tool]({ root }), JSON.parse(args));
process.stdout.write(JSON.stringify(response));
