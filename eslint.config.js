// ESLint flat config: typescript-eslint's recommended rules, Prettier for formatting, and the
// architecture rule of STYLE.md: core/ never imports a door, a transport or the environment.
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
    files: ['src/core/**/*.ts', 'src/store/**/*.ts', 'src/schemas/**/*.ts', 'src/ops/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'hono', message: 'Only src/http may use Hono.' },
            { name: 'node:http', message: 'Only src/http may use node:http.' },
          ],
          patterns: [
            { group: ['@modelcontextprotocol/*'], message: 'Only src/mcp and src/http may use the MCP SDK.' },
            { group: ['hono/*', '@hono/*'], message: 'Only src/http may use Hono.' },
            {
              group: ['**/http/*', '**/mcp/*', '**/cli/*'],
              message: 'Imports point down: doors import ops/core, never the reverse.',
            },
          ],
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
