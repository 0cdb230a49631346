import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { type AddressPolicy } from './address-policy.ts';

/** A connection {@link guardedDispatcher} refused: the address is inside and not allowed. */
export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
}

/**
 * An undici dispatcher that checks every connection it opens against `policy`, on the address
 * actually connected to: a DNS name is resolved by a lookup that refuses before connecting when
 * any of its addresses is refused (so a name rebound to 127.0.0.1 between two checks cannot
 * pass), an IP literal is checked before connecting, and the socket's remote address is checked
 * again once connected. Redirects open their connections through the same dispatcher, so every
 * hop is checked.
 */
export function guardedDispatcher(policy: AddressPolicy): Agent {
  const plain = buildConnector({});
  const connect: buildConnector.connector = (options, callback) => {
    const hostname = options.hostname;
    const port =
      Number(options.port) || (options.protocol === 'https:' ? 443 : 80);
    const checked: buildConnector.Callback = (...args) => {
      const [error, socket] = args;
      if (error !== null) {
        callback(error, null);
        return;
      }
      const remote = socket.remoteAddress;
      const refused =
        remote === undefined
          ? 'the connection has no remote address'
          : policy.refusal(hostname, remote, port);
      if (refused === undefined) {
        callback(null, socket);
        return;
      }
      socket.destroy();
      callback(new BlockedAddressError(refused), null);
    };
    if (isIP(hostname) !== 0) {
      const refused = policy.refusal(hostname, hostname, port);
      if (refused !== undefined) {
        callback(new BlockedAddressError(refused), null);
        return;
      }
      plain(options, checked);
      return;
    }
    buildConnector({ lookup: guardedLookup(policy, hostname, port) })(
      options,
      checked,
    );
  };
  return new Agent({ connect });
}

function guardedLookup(
  policy: AddressPolicy,
  hostname: string,
  port: number,
): LookupFunction {
  return (name, options, callback) => {
    dnsLookup(name, { ...options, all: true }, (error, addresses) => {
      if (error !== null) {
        callback(error, '', 0);
        return;
      }
      // One refused address refuses the name: which one a connection would pick is not ours
      // to know (happy eyeballs tries them in turn).
      for (const { address } of addresses) {
        const refused = policy.refusal(hostname, address, port);
        if (refused !== undefined) {
          callback(new BlockedAddressError(refused), '', 0);
          return;
        }
      }
      if (options.all === true) {
        (callback as unknown as (e: null, a: LookupAddress[]) => void)(
          null,
          addresses,
        );
        return;
      }
      const [first] = addresses;
      if (first === undefined) {
        callback(
          Object.assign(new Error(`No address for ${name}`), {
            code: 'ENOTFOUND',
          }),
          '',
          0,
        );
        return;
      }
      callback(null, first.address, first.family);
    });
  };
}
