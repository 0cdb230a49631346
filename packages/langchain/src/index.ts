/**
 * Candor inside LangChain.js and LangGraph: the registry's tools as structured tools whose
 * `ToolMessage`s keep the status, the code and a denial.
 *
 * @packageDocumentation
 * @module \@candor/langchain
 */
export {
  toLangChainTools,
  toolMessageFor,
  withoutOpenCircuits,
} from './to-lang-chain-tools.ts';
export type {
  CandorApprovalRequest,
  CandorArtifact,
  LangChainToolsOptions,
} from './to-lang-chain-tools.ts';
