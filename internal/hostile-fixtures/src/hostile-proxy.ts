import { type HostileLogger } from './hostile-logger.ts';

/**
 * A Proxy whose every read (`get` trap) throws `Error(message)`, `child` included; the other
 * traps are the target's own. Typed as a logger, the most common place it is handed; cast it for
 * anything else. `reads` counts the reads.
 */
export function throwingProxy(message = 'trap down'): {
  logger: HostileLogger;
  reads: () => number;
} {
  let reads = 0;
  const logger = new Proxy({} as HostileLogger, {
    get() {
      reads += 1;
      throw new Error(message);
    },
  });
  return { logger, reads: () => reads };
}

/**
 * A Proxy on which every trap throws `Error(message)`, whichever one a reader (or a guard)
 * reaches for: `get`, `has`, `ownKeys`, `getPrototypeOf`, `getOwnPropertyDescriptor` and the rest.
 * The handler is itself a Proxy, so no trap is forgotten. `touches` counts the traps that ran.
 */
export function everyTrapThrows(message = 'trap down'): {
  proxy: object;
  touches: () => number;
} {
  let touches = 0;
  const handler = new Proxy(
    {},
    {
      get: () => () => {
        touches += 1;
        throw new Error(message);
      },
    },
  );
  return { proxy: new Proxy({}, handler), touches: () => touches };
}

/** A revoked Proxy: any operation on it but `typeof` throws a TypeError. */
export function revokedProxy(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/**
 * `target` behind a Proxy that counts each `get` and `has` by key, and otherwise behaves as
 * `target`: for showing that a reader reads each field of a foreign object once (snapshot, then
 * trust the copy), where a second read could answer differently.
 */
export function countingProxy<T extends object>(
  target: T,
): {
  proxy: T;
  /** How many times `key` was read with `get`. */
  reads: (key: PropertyKey) => number;
  /** How many times `key` was asked about with `in` (`has`). */
  asks: (key: PropertyKey) => number;
} {
  const gets = new Map<PropertyKey, number>();
  const hases = new Map<PropertyKey, number>();
  const proxy = new Proxy(target, {
    get(inner, key, receiver) {
      gets.set(key, (gets.get(key) ?? 0) + 1);
      return Reflect.get(inner, key, receiver) as unknown;
    },
    has(inner, key) {
      hases.set(key, (hases.get(key) ?? 0) + 1);
      return Reflect.has(inner, key);
    },
  });
  return {
    proxy,
    reads: (key) => gets.get(key) ?? 0,
    asks: (key) => hases.get(key) ?? 0,
  };
}
