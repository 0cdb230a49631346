/**
 * A guard for a test file (composed for this package's tests, not recorded): the file fails if
 * the process emits a warning while it runs. Node prints every process warning, so one raised
 * here is noise in a clean run, and usually a leak (MaxListenersExceededWarning).
 */
import { afterAll, beforeAll, expect } from 'vitest';

/** Registers the guard's hooks on the current file; call once at its top level. */
export function failOnProcessWarnings(): void {
  const warnings: string[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(`${warning.name}: ${warning.message}`);
  };
  beforeAll(() => {
    process.on('warning', onWarning);
  });
  afterAll(async () => {
    // Node emits a warning on the tick after it is raised.
    await new Promise<void>((resolve) => {
      process.nextTick(resolve);
    });
    process.off('warning', onWarning);
    expect(warnings).toEqual([]);
  });
}
