// ESLint flat config: typescript-eslint's recommended rules, Prettier for formatting, and the
// rule that nothing below the doors reads the environment or serves HTTP (the layering table itself is
// dependency-cruiser's: .dependency-cruiser.cjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
    },
  },
  {
    // repositories return Promises (a PostgreSQL store implements the same interfaces): a call whose
    // promise nobody awaits would work on SQLite, which resolves at once, and break there
    files: ['src/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    // the console (console/src, a browser program): typed with its own tsconfig (DOM, Preact's JSX); a
    // request whose promise nobody handles would fail silently in the page
    files: ['console/src/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    // the console's smoke check and build script run on Node; the check's page.evaluate callbacks in the page
    files: ['console/*.mjs', 'scripts/build-console.mjs'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        location: 'readonly',
        document: 'readonly',
        window: 'readonly',
        localStorage: 'readonly',
        sessionStorage: 'readonly',
      },
    },
  },
  {
    // who may import which folder of src/ is dependency-cruiser's table (.dependency-cruiser.cjs, run by
    // `npm run lint`); here, what a folder below the doors may not touch: node:http and the environment
    files: [
      'src/core/**/*.ts',
      'src/store/**/*.ts',
      'src/schemas/**/*.ts',
      'src/ops/**/*.ts',
      'src/fetch/**/*.ts',
      'src/providers/**/*.ts',
      'src/lib/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'node:http', message: 'Only the doors use node:http; outbound HTTP is src/fetch (undici).' }],
        },
      ],
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration in src/config and pass it in.' },
      ],
    },
  },
  {
    files: ['bench/**/*.mjs', 'test/**/*.ts'],
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        setTimeout: 'readonly',
        performance: 'readonly',
        fetch: 'readonly',
        TextDecoder: 'readonly',
        AbortController: 'readonly',
      },
    },
  },
  prettier,
);
