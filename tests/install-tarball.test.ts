import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessGroup } from '../install-test/process-group.ts';
import { fetchPublished } from '../install-test/tarball.ts';

const manifest = {
  name: '@candor/tools',
  version: '0.1.0',
  exports: { '.': './dist/index.js' },
};

describe('fetchPublished', () => {
  let work: string;
  let server: Server;
  let registry: string;
  let integrity: string;

  beforeEach(async () => {
    work = await mkdtemp(join(tmpdir(), 'candor-tarball-'));
    await mkdir(join(work, 'package', 'dist'), { recursive: true });
    await writeFile(
      join(work, 'package', 'package.json'),
      JSON.stringify(manifest),
    );
    await writeFile(join(work, 'package', 'dist', 'index.js'), 'export {};\n');
    execFileSync('tar', ['-czf', 'tools.tgz', 'package'], { cwd: work });
    const tarball = await readFile(join(work, 'tools.tgz'));
    integrity = `sha512-${createHash('sha512').update(tarball).digest('base64')}`;

    // A registry with one packument and its tarball, as npm and Verdaccio serve them.
    server = createServer((request, response) => {
      if (request.url === '/@candor%2ftools') {
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            name: manifest.name,
            versions: {
              '0.1.0': {
                ...manifest,
                dist: { tarball: `${registry}tools-0.1.0.tgz`, integrity },
              },
            },
          }),
        );
      } else if (request.url === '/tools-0.1.0.tgz') {
        response.end(tarball);
      } else {
        response.statusCode = 404;
        response.end();
      }
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    registry = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterEach(async () => {
    server.close();
    await rm(work, { recursive: true, force: true });
  });

  it('returns both manifests and the tarball listing', async () => {
    const fetched = await fetchPublished(
      { registry, name: '@candor/tools', version: '0.1.0' },
      join(work, 'fetched.tgz'),
      new ProcessGroup(),
    );
    expect(fetched.problems).toEqual([]);
    expect(fetched.registryManifest).toMatchObject(manifest);
    expect(fetched.tarballManifest).toEqual(manifest);
    expect([...fetched.files].sort()).toEqual([
      'package/dist/index.js',
      'package/package.json',
    ]);
  });

  it('reports a tarball that does not match its integrity', async () => {
    integrity = 'sha512-AAAA';
    const fetched = await fetchPublished(
      { registry, name: '@candor/tools', version: '0.1.0' },
      join(work, 'fetched.tgz'),
      new ProcessGroup(),
    );
    expect(fetched.problems).toEqual([
      expect.stringContaining('does not match dist.integrity sha512-AAAA'),
    ]);
  });

  it('fails clearly on a version the registry does not have', async () => {
    await expect(
      fetchPublished(
        { registry, name: '@candor/tools', version: '9.9.9' },
        join(work, 'fetched.tgz'),
        new ProcessGroup(),
      ),
    ).rejects.toThrow(
      `@candor/tools@9.9.9 is not in ${registry}@candor%2ftools`,
    );
  });
});
