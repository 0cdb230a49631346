// An MCP server and the official client over an in-memory linked pair, no sockets.
import { type Client } from '@modelcontextprotocol/client';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { type createRegistryServer } from '../create-registry-server.ts';

/** Connects `client` to `server`; returns what closes both, client first. */
export async function linkInMemory(
  server: ReturnType<typeof createRegistryServer>,
  client: Client,
): Promise<() => Promise<void>> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  return async () => {
    await client.close();
    await server.close();
  };
}
