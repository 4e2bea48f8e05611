import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
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
