// @ts-check
// The root `pnpm lint`: the whole repository in one ESLint run over one TypeScript program
// (tsconfig.check.json). Each package's own config (eslint.config.js, the project service) is what
// editors and `pnpm --filter <pkg> lint` use; it builds a program per package, each holding its
// dependencies' sources again, which cost the whole-repository run three times the CPU.
import base from './eslint.config.js';

export default [
  ...base,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: ['./tsconfig.check.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
];
