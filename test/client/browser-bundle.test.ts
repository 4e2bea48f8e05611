import fs from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const CLIENT = path.resolve(import.meta.dirname, '../../packages/client');

/** Bundles an entry for the browser; esbuild fails on any Node built-in it cannot resolve there. */
async function bundle(entry: string, conditions: string[] = []): Promise<string> {
  const out = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    conditions,
    logLevel: 'silent',
    absWorkingDir: CLIENT,
  });
  return out.outputFiles[0]!.text;
}

/**
 * The browser smoke test: the browser entry bundles for a browser with no Node built-in in it,
 * and package.json's `browser` condition picks that entry; the Node entry (file paths) does not bundle.
 */
describe('the client in a browser bundle', () => {
  it('bundles the browser entry with fetch only', async () => {
    const text = await bundle(path.join(CLIENT, 'src/browser.ts'));
    expect(text).toContain('idempotency-key');
    expect(text).toContain('text/event-stream');
    for (const m of builtinModules) expect(text, m).not.toMatch(new RegExp(`from\\s*["'](node:)?${m.replace('/', '\\/')}["']`));
    expect(text).not.toMatch(/\bprocess\.|\brequire\(|\bBuffer\b/);
  });

  it('refuses the Node entry, so the check can fail', async () => {
    await expect(bundle(path.join(CLIENT, 'src/index.ts'))).rejects.toThrow(/node:fs\/promises|node:path/);
  });

  it("maps `import 'alertbridge'` to the browser entry under the browser condition, with no dependency", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(CLIENT, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; dependencies?: object };
    expect(pkg.exports['.']).toMatchObject({ browser: './dist/browser.js', default: './dist/index.js', types: './dist/index.d.ts' });
    expect(pkg.dependencies).toBeUndefined();
  });
});
