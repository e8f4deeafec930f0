// @ts-check
// typescript-eslint's recommended type-checked rules over the source folders (tests are held by their
// own assertions). `npm run lint:eslint` (scripts/lint/eslint-ratchet.ts) runs it and holds each rule's
// count of findings to scripts/lint/eslint-baseline.json: a count may fall, never rise.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'test-output/**', 'web/**', 'types/**', 'test/**', '**/*.js'] },
  {
    files: ['adapters/**/*.ts', 'services/**/*.ts', 'machines/**/*.ts', 'projections/**/*.ts', 'scripts/**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // Fastify handlers and port implementations are async by contract, awaiting or not.
      '@typescript-eslint/require-await': 'off',
      // It reads xstate's `types: { context: {} as Context }` declarations as needless, and its fix
      // breaks the build; tsc judges assertions here.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A double cast defeats the type checker: no `x as unknown as T` outside tests (issue 46 §6).
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSAsExpression > TSAsExpression.expression[typeAnnotation.type="TSUnknownKeyword"]',
          message: 'no `as unknown as` outside tests: type the value, or narrow it with a guard',
        },
      ],
    },
  },
);
