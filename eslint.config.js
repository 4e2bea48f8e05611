// ESLint flat config. typescript-eslint's recommended rules everywhere; on src/, type-aware
// promise rules too, because in a server a floating promise is an error nobody logs and a
// write nobody waits for (an unhandled rejection, a send that races shutdown).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'packages/*/dist/', 'node_modules/', 'data/', 'drizzle/', '.vitest-tmp/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    rules: {
      // `const { secret: _secret, ...rest } = row` is how a member is left out of an object; `_x` marks a
      // deliberately unused binding.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ['src/**/*.{ts,tsx}'],
    // The build's own program (src/ only): smaller than the editor's, which also holds test/ and bench/.
    languageOptions: { parserOptions: { project: './tsconfig.build.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // The client package (packages/client): its own program, the same promise rules as the server's.
    files: ['packages/client/src/**/*.ts'],
    languageOptions: { parserOptions: { project: './packages/client/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // Plain JavaScript that runs in Node: the build's asset copy, the bench's preload, the tests' module-log preload.
    files: ['scripts/**/*.mjs', 'packages/*/bin/*.js', 'bench/**/*.mjs', 'test/fixtures/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    // CommonJS configuration read by a tool (dependency-cruiser's layer rules).
    files: ['*.cjs'],
    languageOptions: { globals: globals.node, sourceType: 'commonjs' },
  },
  {
    // The dashboard's own small scripts run in the browser, not in Node.
    files: ['src/dashboard/assets/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'script' },
  },
  {
    // Tests and benches: a floating promise there is a step that runs after the assertion it feeds
    // (a setting written after the pass it was meant for). Type-aware over the editor's program.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
);
