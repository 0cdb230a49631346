// The approval scenarios of the adapters' conformance suite (adapter-conformance.ts): who is
// asked, about which calls, and what they are shown.
import { type ToolEndEvent, ToolRegistry } from '@candor/registry';
import { defineTool, outcomeOf, ToolResponse } from '@candor/tools';
import { expect, it } from 'vitest';
import { z } from 'zod';
import { type AdapterUnderTest, unique } from './adapter-conformance.ts';

/** A registry for one scenario, recording every call's end and counting the tool's runs. */
function scenario(
  track: (registry: ToolRegistry) => void,
  register: (registry: ToolRegistry, count: () => void) => void,
): { registry: ToolRegistry; ends: ToolEndEvent[]; runs: () => number } {
  const registry = new ToolRegistry();
  track(registry);
  const ends: ToolEndEvent[] = [];
  registry.on('tool:end', (event) => ends.push(event));
  let ran = 0;
  register(registry, () => {
    ran += 1;
  });
  return { registry, ends, runs: () => ran };
}

/** Each call that ended other than denied, with its error code or status. */
function undenied(ends: readonly ToolEndEvent[]): [string, string][] {
  return ends
    .filter((end) => outcomeOf(end.response) !== 'denied')
    .map((end) => [
      end.callId,
      end.response.status === 'error'
        ? end.response.errorInfo.code
        : end.response.status,
    ]);
}

/** The approval scenarios, for an adapter whose framework has approvals. */
export function runApprovalScenarios(
  adapter: AdapterUnderTest,
  rejectApproval: NonNullable<AdapterUnderTest['rejectApproval']>,
  /** Hands each scenario's registry to the suite, which shuts it down after. */
  track: (registry: ToolRegistry) => void,
): void {
  it('asks approval only for arguments the tool takes, and shows their secrets censored', async () => {
    const { registry, ends, runs } = scenario(track, (into, count) =>
      into.register(
        defineTool({
          name: 'login',
          description: 'Logs in',
          input: z.object({ user: z.string(), password: z.string() }),
          run: () => {
            count();
            return ToolResponse.success('in');
          },
        }),
      ),
    );
    const asked: unknown[] = [];
    await rejectApproval(
      registry,
      (name, input) => {
        asked.push([name, input]);
        return true;
      },
      [
        {
          id: 'valid',
          name: 'login',
          input: { user: 'ada', password: 'hunter2' },
        },
        { id: 'invalid', name: 'login', input: { user: 5 } },
      ],
    );
    expect(unique(asked)).toEqual([
      ['login', { user: 'ada', password: '[REDACTED]' }],
    ]);
    // The invalid call went to the registry without a question, and was refused there
    // (or the framework refused it first); the valid one was not approved, so never ran.
    expect(undenied(ends)).toEqual(
      adapter.validatesArguments === true ? [] : [['invalid', 'INVALID_PARAM']],
    );
    expect(runs()).toBe(0);
  });

  it("asks approval only for what the registry's own schema takes, shown as it validated and censored it", async () => {
    const { registry, ends, runs } = scenario(track, (into, count) =>
      into.register(
        defineTool({
          name: 'deploy',
          description: 'Deploys a branch',
          input: z.object({
            // A refinement no JSON Schema says: only the registry knows to refuse `tmp/…`.
            branch: z
              .string()
              .refine((branch) => !branch.startsWith('tmp/'), 'no tmp'),
            // A transform: the person sees the value the tool would get.
            user: z.string().trim().toLowerCase(),
            token: z.string(),
          }),
          run: () => {
            count();
            return ToolResponse.success('deployed');
          },
        }),
      ),
    );
    const asked: unknown[] = [];
    await rejectApproval(
      registry,
      (name, input) => {
        asked.push([name, input]);
        return true;
      },
      [
        {
          id: 'valid',
          name: 'deploy',
          input: { branch: 'main', user: '  ADA ', token: 't0ken' },
        },
        {
          id: 'refined',
          name: 'deploy',
          input: { branch: 'tmp/x', user: 'ada', token: 't0ken' },
        },
      ],
    );
    expect(unique(asked)).toEqual([
      ['deploy', { branch: 'main', user: 'ada', token: '[REDACTED]' }],
    ]);
    // The refused call reached the registry unasked and got its INVALID_PARAM; the valid one
    // was not approved, so nothing ran.
    expect(undenied(ends)).toEqual([['refined', 'INVALID_PARAM']]);
    expect(runs()).toBe(0);
  });
}
