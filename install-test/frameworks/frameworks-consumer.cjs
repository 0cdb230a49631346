// The framework adapters through `require()` of ESM (Node 20.19 and later).
const { report } = require('./frameworks-logic.cjs');

report({
  ai: require('@candor/ai-sdk'),
  aiTest: require('ai/test'),
  langchain: require('@candor/langchain'),
  openaiAgents: require('@candor/openai-agents'),
  agents: require('@openai/agents'),
  registryModule: require('@candor/registry'),
  tools: require('@candor/tools'),
  zod: require('zod'),
}).then(
  (result) => {
    console.log(JSON.stringify({ module: 'commonjs', ...result }));
  },
  (error) => {
    console.error(error);
    process.exitCode = 1;
  },
);
