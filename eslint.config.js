// ESLint flat config. typescript-eslint's recommended rules everywhere; on src/, type-aware
// promise rules too, because in a server a floating promise is an error nobody logs and a
// write nobody waits for (an unhandled rejection, a send that races shutdown).
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'data/', 'drizzle/', '.vitest-tmp/'] },
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
    // Plain JavaScript that runs in Node: the build's asset copy, the bench's preload.
    files: ['scripts/**/*.mjs', 'bench/**/*.mjs'],
    languageOptions: { globals: globals.node },
  },
  {
    // The dashboard's own small scripts run in the browser, not in Node.
    files: ['src/dashboard/assets/**/*.js'],
    languageOptions: { globals: globals.browser, sourceType: 'script' },
  },
  {
    // Tests still read many response bodies `as any` (to be typed from the zod schemas): shown, not yet failing.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'warn' },
  },
);
