import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { AlertDraft } from '../../src/domain/formats/command.js';
import { FORMAT_LIMITS as L } from '../../src/domain/formats/limits.js';
import { WebhookPayload } from '../../src/domain/webhook/payload.js';

/** The formats restate the webhook's limits: each must be exactly what the webhook schema accepts. */
describe('format limits agree with the webhook schema', () => {
  const base = { title: 't' };
  const ok = (p: object) => WebhookPayload.safeParse({ ...base, ...p }).success;
  const cases: [string, (n: number) => object, number][] = [
    ['title', (n) => ({ title: 'x'.repeat(n) }), L.title],
    ['message', (n) => ({ message: 'x'.repeat(n) }), L.message],
    ['linkText', (n) => ({ linkText: 'x'.repeat(n) }), L.linkText],
    ['source', (n) => ({ source: 'x'.repeat(n) }), L.source],
    ['fieldLabel', (n) => ({ fields: [{ label: 'x'.repeat(n), value: 'v' }] }), L.fieldLabel],
    ['fieldValue', (n) => ({ fields: [{ label: 'l', value: 'x'.repeat(n) }] }), L.fieldValue],
    ['fields', (n) => ({ fields: Array.from({ length: n }, () => ({ label: 'l', value: 'v' })) }), L.fields],
    ['linkUrl', (n) => ({ linkUrl: `https://a.test/${'x'.repeat(n - 15)}` }), L.linkUrl],
    ['actorText', (n) => ({ actor: { name: 'x'.repeat(n) } }), L.actorText],
    ['runId', (n) => ({ workflow: { runId: 'x'.repeat(n), state: 'running', steps: [] } }), L.runId],
    ['steps', (n) => ({ workflow: { runId: 'r', state: 'running', steps: Array.from({ length: n }, () => ({ name: 's', state: 'done' })) } }), L.steps],
    ['stepName', (n) => ({ workflow: { runId: 'r', state: 'running', steps: [{ name: 'x'.repeat(n), state: 'done' }] } }), L.stepName],
    ['stepInfo', (n) => ({ workflow: { runId: 'r', state: 'running', steps: [{ name: 's', state: 'done', info: 'x'.repeat(n) }] } }), L.stepInfo],
    ['workflowError', (n) => ({ workflow: { runId: 'r', state: 'failed', steps: [], error: 'x'.repeat(n) } }), L.workflowError],
  ];
  it.each(cases)('%s', (_name, make, limit) => {
    expect(ok(make(limit))).toBe(true);
    expect(ok(make(limit + 1))).toBe(false);
  });
});

describe('drafts are webhook bodies by type too', () => {
  it('an AlertDraft is assignable to the webhook input type', () => {
    // Compile-time check (tsc --noEmit runs over test/): a draft the mappers build is a body the webhook takes.
    const draft: AlertDraft = { title: 't', level: 'info', workflow: { runId: 'r', state: 'running', steps: [{ name: 's', state: 'done', seconds: 1 }] } };
    const input: z.input<typeof WebhookPayload> = draft;
    expect(WebhookPayload.safeParse(input).success).toBe(true);
  });
});
