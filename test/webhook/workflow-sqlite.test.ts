import { afterEach, describe, expect, it } from 'vitest';
import { WebhookPayload } from '../../src/domain/webhook/payload.js';
import { createHarness, seedWorkspace, type Harness } from '../helpers/harness.js';

// About SQLite's write batcher (one group commit replayed unit by unit); the same refusal on either engine is in workflow.test.ts.
let h: Harness;
afterEach(async () => h?.close());

const steps = (...states: string[]) =>
  states.map((state, i) => ({ name: ['checkout', 'build', 'test', 'deploy'][i]!, state, ...(state === 'done' ? { seconds: 12.5 } : {}) }));

describe('workflow runs in the group commit', () => {
  it('a refused run update committed in the same batch as other webhooks fails alone, leaving nothing half-stored', async () => {
    h = createHarness();
    const seed = await seedWorkspace(h.services);
    const channel = h.services.webhookChannels.find(seed.deploys.webhookToken)!;
    const wf = (state: string) => ({ runId: 'r9', state, steps: steps(state === 'running' ? 'running' : 'done') });
    await h.services.ingest.ingest(channel, WebhookPayload.parse({ title: 'run', workflow: wf('passed') }), []);
    const count = (sql: string) => (h.services.db.sqlite.prepare(sql).pluck().get() as number);
    const before = { alerts: count('SELECT count(*) FROM alerts'), jobs: count('SELECT count(*) FROM notification_jobs'), events: count('SELECT count(*) FROM alert_events') };
    const replays = h.services.batcher.stats.replays;

    // Queued in one event-loop turn: one group commit, in which the middle unit throws.
    const results = await Promise.allSettled([
      h.services.ingest.ingest(channel, WebhookPayload.parse({ title: 'before' }), []),
      h.services.ingest.ingest(channel, WebhookPayload.parse({ title: 'run', workflow: wf('failed') }), []),
      h.services.ingest.ingest(channel, WebhookPayload.parse({ title: 'after' }), []),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.code).toBe('workflow-run-finished');
    expect(h.services.batcher.stats.replays).toBe(replays + 1);
    const titles = h.services.db.sqlite.prepare('SELECT title, workflow_state AS state FROM alerts ORDER BY id').all();
    expect(titles).toEqual([{ title: 'run', state: 'passed' }, { title: 'before', state: null }, { title: 'after', state: null }]);
    // Exactly the two accepted alerts' outbox and stream rows, and their billing.
    expect(count('SELECT count(*) FROM notification_jobs')).toBe(before.jobs + 2);
    expect(count('SELECT count(*) FROM alert_events')).toBe(before.events + 2);
    expect(count('SELECT count(*) FROM alerts')).toBe(before.alerts + 2);
    expect((await h.services.usage.report(seed.ws.id)).months[0]!.events).toBe(3);
  });
});
