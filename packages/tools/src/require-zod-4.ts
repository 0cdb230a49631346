import { z } from 'zod';

/** The zod range Candor is built and tested against; the peer dependency says the same. */
export const SUPPORTED_ZOD_RANGE = '^4.0.17';

/**
 * Throws unless the `zod` this package imports is zod 4. Called before the first schema is
 * built at import time: with zod 3 (a project that pinned it, or pnpm installing beside an
 * unmet peer) that would fail with `z.looseObject is not a function`, which names neither zod
 * version. A zod 4 schema carries `_zod` internals; a zod 3 one has only `_def`.
 */
export function requireZod4(): void {
  const make = (z as { string?: unknown }).string;
  const probe: unknown = typeof make === 'function' ? z.string() : undefined;
  if (typeof probe === 'object' && probe !== null && '_zod' in probe) return;
  const found =
    typeof probe === 'object' && probe !== null && '_def' in probe
      ? 'zod 3'
      : 'a zod without zod 4 schemas';
  throw new Error(
    `@candor/tools needs zod ${SUPPORTED_ZOD_RANGE} (its peer dependency), but found ${found}: install zod@4 (npm install zod@4) and import { z } from 'zod'`,
  );
}
