import { readFileSync } from 'node:fs';
import { afterEach, expect } from 'vitest';
import { createHarness, listen, seedWorkspace, type Harness } from '../helpers/harness.js';
import { WebhookPayload } from '../../src/domain/webhook/payload.js';

/** A provider's documented example payload from test/fixtures/formats. */
export const fixture = (provider: string, name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../fixtures/formats/${provider}/${name}.json`, import.meta.url), 'utf8')) as Record<string, unknown>;

/** Every draft a mapper returns must be a body the plain webhook accepts. */
export function expectWebhookValid(payload: unknown) {
  const r = WebhookPayload.safeParse(payload);
  expect(r.success ? [] : r.error.issues).toEqual([]);
  return r.data!;
}

/**
 * A fresh service with a seeded workspace, served over real HTTP on loopback, for each test that
 * calls the returned function; both are closed after the test. Call at the top of a test file.
 */
export function servedHarness(env?: Record<string, string>) {
  let open: { h: Harness; server: { url: string; close(): Promise<void> } } | undefined;
  afterEach(async () => {
    await open?.server.close();
    await open?.h.close();
    open = undefined;
  });
  return async () => {
    const h = createHarness(env ? { env } : {});
    const seed = await seedWorkspace(h.services);
    open = { h, server: await listen(h.app.fetch) };
    return { ...open, seed };
  };
}
