import { type ToolRegistry } from '@candor/registry';
import { type Output } from './output.ts';

/** Five expressions, five outcomes: the calculator never answers Infinity or an "Error:" string. */
export async function calculatorSection(
  output: Output,
  registry: ToolRegistry,
): Promise<void> {
  output.section('The calculator tool: one call per outcome');
  const cases: [label: string, expression: string][] = [
    ['2 + 3 * 4', '2 + 3 * 4'],
    ['2 ** 40 * 1000 (above 1e10)', '2 ** 40 * 1000'],
    ['an empty expression', ''],
    ['2 + abc', '2 + abc'],
    ['1 / 0', '1 / 0'],
  ];
  for (const [label, expression] of cases) {
    output.response(label, await registry.call('calculator', { expression }));
  }
}
