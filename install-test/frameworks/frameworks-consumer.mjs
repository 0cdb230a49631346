// The framework adapters through `import`, with each framework installed beside them.
import { createRequire } from 'node:module';
import * as ai from '@candor/ai-sdk';
import * as langchain from '@candor/langchain';
import * as openaiAgents from '@candor/openai-agents';
import * as registryModule from '@candor/registry';
import * as tools from '@candor/tools';
import * as agents from '@openai/agents';
import * as aiTest from 'ai/test';
import * as zod from 'zod';

const { report } = createRequire(import.meta.url)('./frameworks-logic.cjs');
const result = await report({
  ai,
  aiTest,
  langchain,
  openaiAgents,
  agents,
  registryModule,
  tools,
  zod,
});
console.log(JSON.stringify({ module: 'esm', ...result }));
