import { spawn } from 'node:child_process';
import { relative, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { describeThrown, ToolError } from '@candor/errors';
import {
  displayLine,
  type SearchMatch,
  type SearchRequest,
  type SearchResult,
} from './search-engine.ts';
import { ripgrepInclude } from './search-pattern.ts';

const MAX_STDERR = 16 * 1024;

interface RgText {
  readonly text?: string;
  readonly bytes?: string;
}

interface RgMessage {
  readonly type: string;
  readonly data?: {
    readonly path?: RgText;
    readonly lines?: RgText;
    readonly line_number?: number;
  };
}

function textOf(value: RgText | undefined): string {
  if (value?.text !== undefined) return value.text;
  // ripgrep sends what is not valid UTF-8 as base64; decode it the way the JS engine does.
  return Buffer.from(value?.bytes ?? '', 'base64').toString('utf8');
}

/** ripgrep's flags for the semantics both engines share. */
export function ripgrepArgs(request: SearchRequest): string[] {
  return [
    '--json',
    '--no-config',
    '--no-ignore',
    '--sort',
    'path',
    // Raw bytes, like the JavaScript engine: no BOM sniffing, no UTF-16 transcoding.
    '--encoding',
    'none',
    request.caseSensitive ? '--case-sensitive' : '--ignore-case',
    ...(request.fixedStrings ? ['--fixed-strings'] : []),
    // A matching --glob would let hidden files back in; the second glob, later, wins for them.
    ...(request.include === undefined
      ? []
      : ['--glob', ripgrepInclude(request.include), '--glob', '!.*']),
    '--regexp',
    request.compiled.rg,
    '--',
    request.target,
  ];
}

/**
 * The ripgrep search engine. Exit 0 and 1 are results (1 is "no matches", not an error); exit
 * 2 is a failure of the search: INVALID_PARAM when ripgrep could not parse the pattern,
 * EXECUTION_ERROR otherwise, with ripgrep's own message.
 */
export function searchWithRg(
  request: SearchRequest,
  rg: string,
): Promise<SearchResult> {
  return new Promise((resolve, reject) => {
    const matches: SearchMatch[] = [];
    let count = 0;
    let stderr = '';
    let failed: unknown;
    const child = spawn(rg, ripgrepArgs(request), {
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: request.signal,
    });
    child.stderr.setEncoding('utf8').on('data', (text: string) => {
      if (stderr.length < MAX_STDERR) stderr += text;
    });
    createInterface({ input: child.stdout, crlfDelay: Infinity }).on(
      'line',
      (line) => {
        let message: RgMessage;
        try {
          message = JSON.parse(line) as RgMessage;
        } catch (error: unknown) {
          failed ??= error;
          return;
        }
        if (message.type !== 'match' || message.data === undefined) return;
        count += 1;
        if (matches.length >= request.limit) return;
        matches.push({
          path: relative(request.root, textOf(message.data.path))
            .split(sep)
            .join('/'),
          line: message.data.line_number ?? 0,
          text: displayLine(textOf(message.data.lines), request.maxLineChars),
        });
      },
    );
    child.on('error', (error) => {
      failed ??= error;
    });
    child.on('close', (code) => {
      if (request.signal.aborted) {
        reject(request.signal.reason as Error);
        return;
      }
      if ((code === 0 || code === 1) && failed === undefined) {
        resolve({ matches, count });
        return;
      }
      const problem = stderr.trim();
      if (
        code === 2 &&
        /regex parse error|error parsing regex/i.test(problem)
      ) {
        reject(
          new ToolError({
            code: 'INVALID_PARAM',
            message: `Invalid regular expression ${JSON.stringify(request.pattern)}: ${problem.split('\n').at(-1) ?? problem}`,
            details: { pattern: request.pattern },
          }),
        );
        return;
      }
      reject(
        new ToolError({
          code: 'EXECUTION_ERROR',
          message: `ripgrep failed (exit ${String(code)}): ${
            problem === '' && failed !== undefined
              ? describeThrown(failed)
              : problem || 'no message'
          }`,
          details: { exitCode: code },
          cause: failed,
        }),
      );
    });
  });
}
