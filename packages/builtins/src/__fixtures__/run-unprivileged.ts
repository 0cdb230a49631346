import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The uid and gid of `nobody` on Linux. */
export const NOBODY = 65534;

/**
 * Runs a TypeScript fixture as `nobody`, so that file modes apply even when the tests run as
 * root (as they do in CI). Resolves with the child's stdout.
 */
export function runUnprivileged(
  script: string,
  args: readonly string[],
): Promise<string> {
  const tsx = import.meta.resolve('tsx/esm');
  const path = fileURLToPath(new URL(script, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', tsx, '--conditions=@candor/source', path, ...args],
      { uid: NOBODY, gid: NOBODY, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      stderr += text;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`fixture exited with ${String(code)}: ${stderr}`));
    });
  });
}

/** Whether file-mode tests mean anything here, and how to run them. */
export type PrivilegeMode =
  | { readonly mode: 'in-process' }
  | { readonly mode: 'child' }
  | { readonly mode: 'skip'; readonly reason: string };

/**
 * How to run a test that needs file modes to apply: in this process when it is not root, in a
 * child as `nobody` when it is root and such a child can load the sources (a checkout under a
 * private home directory cannot be read by `nobody`), and not at all otherwise.
 */
export async function privilegeMode(): Promise<PrivilegeMode> {
  if (process.getuid?.() !== 0) return { mode: 'in-process' };
  try {
    const output = await runUnprivileged('./probe.ts', []);
    return output === 'ok 8192'
      ? { mode: 'child' }
      : { mode: 'skip', reason: `unexpected probe output ${output}` };
  } catch (error: unknown) {
    return {
      mode: 'skip',
      reason: `running as root, and a child process as nobody cannot load the sources: ${
        error instanceof Error ? error.message.split('\n')[0] : String(error)
      }`,
    };
  }
}
