import { anthropicProtocol } from './anthropic-protocol.ts';
import { geminiProtocol } from './gemini-protocol.ts';
import { openAiProtocol } from './openai-protocol.ts';
import type { ProviderProtocol } from './provider-protocol.ts';
import { responsesProtocol } from './responses-protocol.ts';

/** The protocol that answers a path, and whether it serves that path. */
export interface Route {
  readonly protocol: ProviderProtocol;
  readonly known: boolean;
}

// OpenAI last: it is the fallback shape for paths no provider claims.
const protocols: readonly ProviderProtocol[] = [
  anthropicProtocol,
  geminiProtocol,
  responsesProtocol,
  openAiProtocol,
];

export function route(path: string): Route {
  const known = protocols.find((protocol) => protocol.matches(path));
  if (known !== undefined) return { protocol: known, known: true };
  // Answer unknown paths in the shape of the provider the path most resembles.
  return {
    protocol:
      protocols.find((protocol) => protocol.resembles(path)) ?? openAiProtocol,
    known: false,
  };
}
