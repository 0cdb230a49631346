/**
 * The dependency picture as data. A package may depend only on packages of a strictly lower
 * rank: arrows point down. Packages that sit beside the main column get the rank of the layer
 * they sit on, so they can never be imported by it.
 */
export const layerRank: Readonly<Record<string, number>> = {
  // Private test fixtures: every package's tests import them, so they sit below everything.
  '@candor/hostile-fixtures': -1,
  '@candor/errors': 0,
  '@candor/tools': 1,
  '@candor/testing': 1,
  '@candor/breaker': 2,
  '@candor/traces': 2,
  '@candor/registry': 3,
  '@candor/breaker-redis': 3,
  '@candor/builtins': 3,
  '@candor/core': 4,
  '@candor/mcp': 4,
  // Above core: fromLanguageModel produces core's ChatModel type.
  '@candor/ai-sdk': 5,
  '@candor/langchain': 5,
  '@candor/openai-agents': 5,
  '@candor/demo': 6,
  '@candor/bench': 7,
};
