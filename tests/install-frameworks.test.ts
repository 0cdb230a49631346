import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkFrameworkReport,
  FRAMEWORK_ADAPTERS,
  FRAMEWORK_SETS,
  frameworkLegs,
  installedAsAsked,
} from '../install-test/framework-consumers.ts';

const root = join(import.meta.dirname, '..');

function peers(name: string): Record<string, string> {
  const dir = name.replace('@candor/', '');
  const manifest = JSON.parse(
    readFileSync(join(root, 'packages', dir, 'package.json'), 'utf8'),
  ) as { peerDependencies?: Record<string, string> };
  return manifest.peerDependencies ?? {};
}

/** The lowest version a peer range names: its first `x.y.z` (`^6.0.0 || ^7.0.0` gives 6.0.0). */
function floorOf(range: string): string | undefined {
  return /\d+\.\d+\.\d+/.exec(range)?.[0];
}

function compare(a: string, b: string): number {
  const [x, y] = [a, b].map((version) => version.split('.').map(Number));
  for (let index = 0; index < 3; index++) {
    const diff = (x?.[index] ?? 0) - (y?.[index] ?? 0);
    if (diff !== 0) return diff;
  }
  return 0;
}

/** The version a set installs a package at: `ai@6.0.0` gives 6.0.0, `ai@^7` gives ^7. */
function specOf(set: readonly string[], name: string): string | undefined {
  return set
    .find((spec) => spec.lastIndexOf('@') > 0 && spec.startsWith(`${name}@`))
    ?.slice(name.length + 1);
}

const good = {
  module: 'esm',
  aiSdk: { type: 'error-text', value: '[INVALID_PARAM] b must not be zero' },
  aiSdkModel: {
    specificationVersion: 'v3',
    sent: {
      toolCallId: 'f1',
      type: 'error-text',
      value: '[INVALID_PARAM] b must not be zero',
    },
    events: [
      { type: 'text-delta', text: 'b must not be zero' },
      { type: 'text-end' },
      {
        type: 'finish',
        finishReason: 'stop',
        usage: { inputTokens: 12, outputTokens: 3 },
      },
    ],
  },
  langchain: {
    status: 'error',
    code: 'INVALID_PARAM',
    content: '[INVALID_PARAM] b must not be zero',
    toolCallId: 'l1',
  },
  openaiAgents: '[INVALID_PARAM] b must not be zero',
};

describe('the framework consumers of the install test', () => {
  it('accept a report where every framework tells the model the code', () => {
    expect(checkFrameworkReport(JSON.stringify(good), 'esm')).toEqual([]);
  });

  it('reject fromLanguageModel sending the failure as plain text, or losing usage', () => {
    const plain = {
      ...good,
      aiSdkModel: {
        ...good.aiSdkModel,
        sent: { ...good.aiSdkModel.sent, type: 'text' },
      },
    };
    expect(checkFrameworkReport(JSON.stringify(plain), 'esm')).toEqual([
      expect.stringContaining('fromLanguageModel: the AI SDK model was not'),
    ]);
    const noUsage = {
      ...good,
      aiSdkModel: {
        ...good.aiSdkModel,
        events: [good.aiSdkModel.events[0], { type: 'finish' }],
      },
    };
    expect(checkFrameworkReport(JSON.stringify(noUsage), 'esm')).toEqual([
      expect.stringContaining('fromLanguageModel: not the text'),
    ]);
    expect(
      checkFrameworkReport(
        JSON.stringify({ ...good, aiSdkModel: undefined }),
        'esm',
      ),
    ).toHaveLength(2);
  });

  it('run the Node 20 set always, the floor with --full, the newest majors on Node 22 only', () => {
    expect(frameworkLegs(20, false)).toEqual(['node20']);
    expect(frameworkLegs(20, true)).toEqual(['node20', 'floor']);
    expect(frameworkLegs(22, true)).toEqual(['node22']);
    expect(frameworkLegs(24, true)).toEqual([]);
  });

  it('hold an installed version to what the set asked for', () => {
    expect(installedAsAsked('^7', '7.0.173')).toBe(true);
    expect(installedAsAsked('^7', '6.0.326')).toBe(false);
    expect(installedAsAsked('~0.14', '0.14.3')).toBe(true);
    expect(installedAsAsked('~0.14', '0.15.0')).toBe(false);
    expect(installedAsAsked('6.0.0', '6.0.0')).toBe(true);
    expect(installedAsAsked('6.0.0', '6.0.1')).toBe(false);
    expect(installedAsAsked('latest', '0.20.0')).toBe(true);
    expect(installedAsAsked('latest', 'not a version')).toBe(false);
  });

  describe.each(FRAMEWORK_ADAPTERS)('%s', (adapter) => {
    const frameworks = Object.entries(peers(adapter)).filter(
      ([name]) => name !== 'zod',
    );

    it('has its framework as a peer dependency', () => {
      expect(frameworks.length).toBeGreaterThan(0);
    });

    it.each(frameworks)(
      'the floor set installs %s at the lowest version of its peer range %s',
      (name, range) => {
        expect(specOf(FRAMEWORK_SETS.floor, name)).toBe(floorOf(range));
      },
    );
  });

  it('the floor set installs a zod every Candor peer range allows', () => {
    const zod = specOf(FRAMEWORK_SETS.floor, 'zod') ?? '';
    const floor = floorOf(peers('@candor/tools')['zod'] ?? '') ?? '';
    expect(floor).toMatch(/^4\./);
    expect(compare(zod, floor)).toBeGreaterThanOrEqual(0);
    expect(zod.split('.')[0]).toBe(floor.split('.')[0]);
  });

  it("the Node 20 and Node 22 sets install ai majors inside @candor/ai-sdk's peer range", () => {
    const range = peers('@candor/ai-sdk')['ai'] ?? '';
    for (const set of [FRAMEWORK_SETS.node20, FRAMEWORK_SETS.node22]) {
      const major = /^\^(\d+)$/.exec(specOf(set, 'ai') ?? '')?.[1];
      expect(range.split('||').map((part) => part.trim())).toContain(
        `^${major ?? '?'}.0.0`,
      );
    }
  });
});
