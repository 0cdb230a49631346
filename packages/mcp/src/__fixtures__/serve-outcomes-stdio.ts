// Run as a child process: the outcome registry served over this process's stdin and stdout.
import { serveRegistry } from '../serve-registry.ts';
import { outcomeRegistry } from './outcome-registry.ts';

await serveRegistry(outcomeRegistry(), { transport: 'stdio' });
