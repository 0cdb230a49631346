import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type ProcessGroup } from './process-group.ts';

/** A package as the registry serves it: its version manifest and its tarball's contents. */
export interface FetchedPackage {
  /** The version manifest from the packument, which npm and pnpm resolve against. */
  readonly registryManifest: Record<string, unknown>;
  /** `package/package.json` from the tarball, which ends up in `node_modules`. */
  readonly tarballManifest: Record<string, unknown>;
  /** Every path in the tarball, as listed (`package/dist/index.js`). */
  readonly files: readonly string[];
  /** Problems with the download itself, such as an integrity mismatch. */
  readonly problems: readonly string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

async function getJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`GET ${url}: HTTP ${response.status}`);
  return response.json();
}

/**
 * Fetches one published version back from the registry, as an installer would: the packument,
 * then the tarball it names, checked against its integrity and listed with the system `tar`.
 */
export async function fetchPublished(
  target: {
    readonly registry: string;
    readonly name: string;
    readonly version: string;
  },
  saveAs: string,
  processes: ProcessGroup,
): Promise<FetchedPackage> {
  const packumentUrl = new URL(target.name.replace('/', '%2f'), target.registry)
    .href;
  const packument = await getJson(packumentUrl);
  const versions = isRecord(packument) ? packument['versions'] : undefined;
  const manifest = isRecord(versions) ? versions[target.version] : undefined;
  if (!isRecord(manifest)) {
    throw new Error(
      `${target.name}@${target.version} is not in ${packumentUrl}`,
    );
  }
  const dist = manifest['dist'];
  if (!isRecord(dist) || typeof dist['tarball'] !== 'string') {
    throw new Error(`${target.name}@${target.version} has no dist.tarball`);
  }
  const response = await fetch(dist['tarball']);
  if (!response.ok) {
    throw new Error(`GET ${dist['tarball']}: HTTP ${response.status}`);
  }
  const bytes = Buffer.from(await response.arrayBuffer());
  await writeFile(saveAs, bytes);

  const problems: string[] = [];
  const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
  if (dist['integrity'] !== integrity) {
    problems.push(
      `tarball integrity ${integrity} does not match dist.integrity ${String(dist['integrity'])}`,
    );
  }
  const options = { cwd: dirname(saveAs), env: process.env };
  const listing = await processes.runOk('tar', ['-tzf', saveAs], options);
  const packageJson = await processes.runOk(
    'tar',
    ['-xzOf', saveAs, 'package/package.json'],
    options,
  );
  const tarballManifest: unknown = JSON.parse(packageJson.stdout);
  if (!isRecord(tarballManifest)) {
    throw new Error(`${target.name}: package/package.json is not an object`);
  }
  return {
    registryManifest: manifest,
    tarballManifest,
    files: listing.stdout
      .split('\n')
      .filter((line) => line !== '' && !line.endsWith('/')),
    problems,
  };
}
