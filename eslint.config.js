import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/**
 * Import direction (docs/architecture.md, "Layers"): shared ← canonical/wire ← surfaces/providers
 * (never each other) ← use cases ← http/cli ← compose/main. Only compose (and tests) import
 * concrete stores.
 */
const layer = (files, forbidden, message) => ({
  files,
  ignores: ['**/*.test.ts'],
  rules: {
    'no-restricted-imports': [
      'error',
      { patterns: forbidden.map((group) => ({ group: [group], message })) },
    ],
  },
});

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'data/',
      'dist/',
      'coverage/',
      'bench/peer/',
      'bench/results/',
      'test-artifacts/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.name='fetch']",
          message: 'Upstream HTTP goes through undici pools (src/providers/shared), not fetch.',
        },
      ],
    },
  },
  {
    // The dashboard's pages run in the browser: they call the gateway's own routes with fetch.
    files: ['web/dashboard/**'],
    rules: { 'no-restricted-syntax': 'off' },
  },
  layer(
    ['src/shared/**', 'src/canonical/**'],
    [
      '**/surfaces/**',
      '**/providers/**',
      '**/generation/**',
      '**/http/**',
      '**/cli/**',
      '**/store/**',
      '**/compose*',
    ],
    'shared and canonical depend on nothing above them.',
  ),
  layer(
    ['src/surfaces/**'],
    [
      '**/providers/**',
      '**/generation/**',
      '**/http/**',
      '**/cli/**',
      '**/store/**',
      '**/compose*',
    ],
    'A surface codec never knows the upstream (docs/architecture.md).',
  ),
  layer(
    ['src/providers/**'],
    ['**/surfaces/**', '**/generation/**', '**/http/**', '**/cli/**', '**/store/**', '**/compose*'],
    'A provider codec never knows the client dialect (docs/architecture.md).',
  ),
  layer(
    [
      'src/auth/**',
      'src/billing/**',
      'src/catalog/**',
      'src/routing/**',
      'src/limits/**',
      'src/generation/**',
      'src/config/**',
      'src/compaction/**',
      'src/responses-state/**',
      'src/connected/**',
      'src/install/**',
      'src/idempotency/**',
      'src/observability/**',
      'src/dashboard/**',
    ],
    ['**/http/**', '**/cli/**', '**/store/**', '**/compose*'],
    'Use cases do not import the HTTP layer, the CLI or concrete stores.',
  ),
  layer(
    // Feature folders (docs/architecture.md) carry their own route plugin, so they may use the HTTP
    // layer.
    ['src/http/**', 'src/cli/**', 'src/features/**'],
    ['**/store/sqlite/**', '**/store/postgres/**', '**/store/redis/**', '**/store/kysely/**'],
    'Only compose chooses concrete stores.',
  ),
);
