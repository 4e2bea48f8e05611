import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startHarness, type Harness, listen, seedWorkspace } from '../helpers/harness.js';
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

type Served = { h: Harness; server: { url: string; close(): Promise<void> }; seed: Awaited<ReturnType<typeof seedWorkspace>> };

async function served(env?: Record<string, string>): Promise<Served> {
  const h = await startHarness(env ? { env } : {});
  const seed = await seedWorkspace(h.services);
  return { h, server: await listen(h.app.fetch), seed };
}

async function closeServed(open: Served | undefined): Promise<void> {
  await open?.server.close();
  await open?.h.close();
}

/**
 * A fresh service (on the file's engine: startHarness) with a seeded workspace, served over real HTTP on loopback, for each test that
 * calls the returned function; both are closed after the test. Call at the top of a test file.
 */
export function servedHarness(env?: Record<string, string>) {
  let open: Served | undefined;
  afterEach(async () => {
    await closeServed(open);
    open = undefined;
  });
  return async () => (open = await served(env));
}

/**
 * The same, one for a whole describe block (a fresh database costs a second or two on PostgreSQL):
 * for tests that each store their own alerts and read them back by id, or compare counts with the
 * count before their requests. Call inside the block; the returned function gives its service.
 */
export function servedForBlock(env?: Record<string, string>) {
  let open: Served | undefined;
  beforeAll(async () => {
    open = await served(env);
  });
  afterAll(async () => {
    await closeServed(open);
    open = undefined;
  });
  return async () => open!;
}
