// Run as a child process: swaps a workspace directory for a symbolic link to an outside
// directory and back, as fast as it can, until it is killed. Usage: swap-loop <dir> <outside>.
import { renameSync, symlinkSync, unlinkSync } from 'node:fs';

const [dir, outside] = process.argv.slice(2);
if (dir === undefined || outside === undefined) process.exit(2);
const parked = `${dir}.parked`;
process.stdout.write('ready\n');
for (;;) {
  renameSync(dir, parked);
  symlinkSync(outside, dir);
  unlinkSync(dir);
  renameSync(parked, dir);
}
