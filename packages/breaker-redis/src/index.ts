/**
 * One circuit per tool across a fleet of processes: a Redis (or Valkey) state store for
 * `@candor/breaker`, with a local view on the hot path and a fall back to the local breakers.
 *
 * @packageDocumentation
 * @module \@candor/breaker-redis
 */
export {
  FleetCircuit,
  type FleetAdmission,
  type FleetChange,
  type FleetRules,
  type FleetView,
} from './fleet-circuit.ts';
export { FleetControl } from './fleet-control.ts';
export type { FleetHold, FleetRecord, FleetState } from './fleet-record.ts';
export type { FleetStatus, FleetToolStatus } from './fleet-status.ts';
export { createRedisBreakerStore } from './create-redis-breaker-store.ts';
export { RedisBreakerStore } from './redis-breaker-store.ts';
export type {
  RedisBreakerClusterOptions,
  RedisBreakerSentinelOptions,
  RedisBreakerStoreHealth,
  RedisBreakerStoreOptions,
  RedisBreakerStoreStats,
} from './redis-breaker-store-options.ts';
export { findRedisServer, startRedisServer } from './redis-server.ts';
export type { RedisServer, RedisServerOptions } from './redis-server.ts';
