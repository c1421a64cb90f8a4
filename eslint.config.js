// ESLint (flat config) with typescript-eslint's recommended rules. `npm run lint`.
// Layering is checked by dependency-cruiser (npm run lint:deps), formatting by prettier.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'data/', '.cache/', 'coverage/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // `_`-prefixed names are deliberately unused (destructuring to omit a field).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Tests narrow JSON bodies with `any` on purpose; production code is checked by tsc's strict mode.
      '@typescript-eslint/no-explicit-any': 'off',
      // stream.pipeline sinks are async generators that consume without yielding.
      'require-yield': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
);
