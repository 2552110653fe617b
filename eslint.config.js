// ESLint (flat config): typescript-eslint's recommended rules. `npm run lint` runs it and Prettier's check;
// `npm test` runs `npm run lint` first. Formatting is Prettier's job, so there are no stylistic rules here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const node = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'queueMicrotask',
    'performance',
    'fetch',
    'structuredClone',
    'TextEncoder',
    'TextDecoder',
    'AbortController',
    'AbortSignal',
    'Response',
    'Request',
    'Headers',
    'globalThis',
  ].map((n) => [n, 'readonly']),
);

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test/bench/.data/', 'test/.artifacts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: node },
    rules: {
      // Unused names are also TypeScript's check (noUnusedLocals); `_`-prefixed ones are deliberate.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          caughtErrors: 'none',
        },
      ],
      // Control characters in patterns are the point where terminal text is cleaned (TRUST §6).
      'no-control-regex': 'off',
    },
  },
  // The entry is CommonJS on purpose (bin/package.json says why).
  {
    files: ['bin/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { ...node, require: 'readonly', __dirname: 'readonly', module: 'writable' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Browser scripts served to the dashboard and consent pages.
  {
    files: ['src/server/**/assets/**/*.js'],
    languageOptions: { globals: { document: 'readonly', window: 'readonly', navigator: 'readonly', Intl: 'readonly' } },
  },
  // Tests may reach into loosely typed payloads.
  { files: ['test/**'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
);
