// Proves that a child running as `nobody` can load the TypeScript sources (see run-unprivileged.ts).
import { BINARY_SNIFF_BYTES } from '../binary-reason.ts';

process.stdout.write(`ok ${BINARY_SNIFF_BYTES}`);
