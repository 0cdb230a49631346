/**
 * Candor inside the Vercel AI SDK: the registry's tools as an AI SDK `ToolSet`, and any
 * AI SDK language model as a Candor `ChatModel`.
 *
 * @packageDocumentation
 * @module \@candor/ai-sdk
 */
export { toAISDKTools } from './to-ai-sdk-tools.ts';
export type { AISDKToolsOptions } from './to-ai-sdk-tools.ts';
// The names of the first release, now in @candor/tools where every adapter can use them.
export { typedResultForModel as modelOutputFor } from '@candor/tools';
export type {
  NeedsApproval,
  TypedModelResult as CandorModelOutput,
} from '@candor/tools';
export { fromLanguageModel } from './from-language-model.ts';
export type { FromLanguageModelOptions } from './from-language-model.ts';
