// Runs read_file in a child process whose user cannot bypass file modes (see read-file-tool.test.ts).
import { readFileTool } from '../read-file-tool.ts';
import { callTool } from './call-tool.ts';

const [root, path] = process.argv.slice(2);
if (root === undefined || path === undefined) {
  throw new TypeError('usage: read-as-nobody.ts <root> <path>');
}
const response = await callTool(readFileTool({ root }), { path });
process.stdout.write(JSON.stringify(response));
