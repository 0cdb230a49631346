import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The peers the bench compares with, by package name. */
export const peerPackages = [
  'opossum',
  'zod',
  '@langchain/core',
  '@openai/agents',
  'ai',
  'mitata',
] as const;

const benchRoot = dirname(dirname(fileURLToPath(import.meta.url)));

/**
 * The version of each peer as installed, read from its own package.json (some packages do not
 * export it, so it is read from disk rather than imported).
 */
export async function peerVersions(): Promise<Record<string, string>> {
  const entries = await Promise.all(
    peerPackages.map(async (name) => {
      try {
        const text = await readFile(
          join(benchRoot, 'node_modules', name, 'package.json'),
          'utf8',
        );
        const { version } = JSON.parse(text) as { version?: unknown };
        return [name, typeof version === 'string' ? version : 'unknown'];
      } catch (error: unknown) {
        return [
          name,
          `not installed (${error instanceof Error ? error.message : String(error)})`,
        ];
      }
    }),
  );
  return Object.fromEntries(entries) as Record<string, string>;
}
