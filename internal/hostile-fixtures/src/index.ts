/**
 * Hostile objects for the packages' tests, in one place: each package's tests import them
 * (a devDependency), so "a logger that throws" means the same object everywhere. Private, never
 * published; the lowest layer in tests/layers.ts.
 *
 * @module \@candor/hostile-fixtures
 */
export {
  LOGGER_MEMBERS,
  rejectingLogger,
  throwingGetters,
  throwingLogger,
} from './hostile-logger.ts';
export type { HostileLogger, HostileLogMethod } from './hostile-logger.ts';
export {
  countingProxy,
  everyTrapThrows,
  revokedProxy,
  throwingProxy,
} from './hostile-proxy.ts';
