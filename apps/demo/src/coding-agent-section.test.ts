import { describe, expect, it } from 'vitest';
import { codingAgentSection } from './coding-agent-section.ts';
import { Output } from './output.ts';

describe('the coding-agent demo', () => {
  it('runs the failing test, reads the assertion, fixes the file, reruns, and completes', async () => {
    const lines: string[] = [];
    const output = new Output({
      json: false,
      colour: false,
      write: (line) => lines.push(line),
    });
    const fixed = await codingAgentSection(output);
    const shown = lines.join('\n');
    expect(fixed).toContain('return a + b;');
    // Step 1: the model received the failed run with the assertion from stderr.
    expect(shown).toMatch(
      /✗ step 1: shell → the model received:\n\s+│ \[EXECUTION_ERROR\][^\n]*exited with code 1[\s\S]*?│ --- stderr ---[\s\S]*?1 !== 5/u,
    );
    expect(shown).toContain(
      'step 2: the model said: "sum(2, 3) gave -1, expected 5: sum subtracts. Fixing sum.mjs."',
    );
    expect(shown).toMatch(/✓ step 2: write_file → the model received:/u);
    expect(shown).toMatch(
      /✓ step 3: shell → the model received:\n[\s\S]*?sum\.test\.mjs: 1 passed/u,
    );
    expect(shown).toContain(
      'step 4: the model said: "The test passes now: sum adds."',
    );
    expect(shown).toContain('run finished: completed');
  });
});
