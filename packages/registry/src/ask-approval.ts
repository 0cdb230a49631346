import { describeThrown } from '@candor/errors';
import { ToolResponse } from '@candor/tools';
import { type GivenOptions } from './read-call-options.ts';
import { type RegistrySeam } from './registry-seam.ts';
import { type ApprovalGate, type ApprovalRequest } from './registry-types.ts';

const approveAll: ApprovalGate = () => true;

/**
 * Approval: the call's own `approve` (given the registry's gate to defer to) or the registry's
 * gate, asked before the breaker and the run. `undefined` runs the call; a refusal is a denial,
 * and a gate that throws gives INTERNAL_ERROR: neither runs the tool nor touches the breaker.
 */
export async function askApproval(
  seam: RegistrySeam,
  request: ApprovalRequest,
  perCall: GivenOptions['approve'],
): Promise<ToolResponse | undefined> {
  const gate: ApprovalGate = seam.approve ?? approveAll;
  let verdict: { approved: boolean; reason: string };
  try {
    verdict = readDecision(
      await (perCall === undefined ? gate(request) : perCall(request, gate)),
    );
  } catch (error: unknown) {
    return ToolResponse.error(
      'INTERNAL_ERROR',
      `The approval gate failed, so "${request.toolName}" was not run: ${describeThrown(error)}`,
      { retryable: false, details: { stage: 'approval' } },
    );
  }
  if (verdict.approved) return undefined;
  const reason = verdict.reason === '' ? '' : ` (reason: ${verdict.reason})`;
  return ToolResponse.denied(
    `The approval gate refused the call to "${request.toolName}"${reason}.`,
  );
}

/**
 * Only `true` or `{ approved: true }` approves: anything else a gate returns (undefined, a string,
 * a hostile object) refuses, since an unknown answer is not an approval. May throw (getters).
 */
function readDecision(decision: unknown): {
  approved: boolean;
  reason: string;
} {
  if (typeof decision === 'boolean') return { approved: decision, reason: '' };
  if (typeof decision !== 'object' || decision === null) {
    return { approved: false, reason: '' };
  }
  const { approved, reason } = decision as Record<string, unknown>;
  return {
    approved: approved === true,
    reason: typeof reason === 'string' ? reason.trim() : '',
  };
}
