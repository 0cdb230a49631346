// Runs search in a child process whose user cannot bypass file modes (see search-tool.test.ts).
import { searchTool } from '../search-tool.ts';
import { callTool } from './call-tool.ts';

const [root, engine] = process.argv.slice(2);
if (root === undefined || (engine !== 'js' && engine !== 'rg')) {
  throw new TypeError('usage: search-as-nobody.ts <root> <js|rg>');
}
const response = await callTool(searchTool({ root, engine }), {
  pattern: 'needle',
});
process.stdout.write(JSON.stringify(response));
