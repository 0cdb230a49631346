/**
 * Candor inside the Vercel AI SDK: the registry's tools as an AI SDK `ToolSet`, and any
 * AI SDK language model as a Candor `ChatModel`.
 *
 * @packageDocumentation
 * @module \@candor/ai-sdk
 */
export { modelOutputFor, toAISDKTools } from './to-ai-sdk-tools.ts';
export type {
  AISDKToolsOptions,
  CandorModelOutput,
  NeedsApproval,
} from './to-ai-sdk-tools.ts';
export { fromLanguageModel } from './from-language-model.ts';
export type { FromLanguageModelOptions } from './from-language-model.ts';
