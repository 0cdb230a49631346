// @ts-check
// Runs Verdaccio on 127.0.0.1 at a port the kernel picks, and reports it on stdout. The parent
// holds our stdin: when it closes, whatever way the parent ended, this process ends too, so no
// registry is ever left behind.
import { runServer } from 'verdaccio';

// start-registry.ts waits for this exact prefix.
const READY_PREFIX = 'candor-registry-listening ';

const configPath = process.argv[2];
if (configPath === undefined) {
  process.stderr.write('usage: serve-registry.mjs <config.yaml>\n');
  process.exit(2);
}

const server = await runServer(configPath);
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${READY_PREFIX}${server.address().port}\n`);
});
server.on('error', (/** @type {Error} */ error) => {
  process.stderr.write(`registry: ${error.message}\n`);
  process.exit(1);
});

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
process.on('SIGTERM', () => process.exit(0));
