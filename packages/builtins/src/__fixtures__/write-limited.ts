// Runs write_file in a child process started under a file-size limit (`ulimit -f`) with
// SIGXFSZ ignored, so a write past the limit fails with EFBIG (see hardening.test.ts).
import { writeFileTool } from '../write-file-tool.ts';
import { callTool } from './call-tool.ts';

const [root, path, bytes] = process.argv.slice(2);
if (root === undefined || path === undefined || bytes === undefined) {
  throw new TypeError('usage: write-limited.ts <root> <path> <bytes>');
}
const response = await callTool(writeFileTool({ root }), {
  path,
  content: 'y'.repeat(Number(bytes)),
});
process.stdout.write(JSON.stringify(response));
