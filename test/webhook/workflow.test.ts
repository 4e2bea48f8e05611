import { afterEach, describe, expect, it } from 'vitest';
import { WebhookPayload } from '../../src/domain/webhook/payload.js';
import { bodyOf } from '../helpers/bodies.js';
import { startHarness, type Harness, seedWorkspace } from '../helpers/harness.js';
import type { SqliteServices } from '../../src/services.js';

let h: Harness;
afterEach(async () => h?.close());

const jobs = async () => (await h.query<{ kind: string }>('SELECT kind FROM notification_jobs ORDER BY id')).map((r) => r.kind);

const steps = (...states: string[]) =>
  states.map((state, i) => ({ name: ['checkout', 'build', 'test', 'deploy'][i]!, state, ...(state === 'done' ? { seconds: 12.5 } : {}) }));

describe('workflow runs', () => {
  it('create → silent free running updates → passed: one alert, one billable event, resurfaced unread, two notifications', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const post = (state: string, s: object[], extra: object = {}) =>
      h.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, {
        json: { title: 'Deploy api v1.4', level: 'error', workflow: { runId: 'run-77', state, steps: s }, ...extra },
      });
    const unread = async (token: string) =>
      (await bodyOf.channels(await h.call('GET', '/api/channels', { token }))).find((c) => c.slug === 'deploys')!._count.alerts;

    const first = await post('running', steps('running', 'pending', 'pending', 'pending'));
    expect(first.status).toBe(201);
    const created = await bodyOf.accepted(first);
    expect(created.workflow).toEqual({ runId: 'run-77', state: 'running', created: true });
    const alertId = created.alertId;
    expect(await jobs()).toEqual(['workflow.started']);

    // The owner reads it one by one, the member with mark-all-read; running updates keep it read and notify nobody.
    await h.call('PATCH', `/api/alerts/${alertId}`, { token: seed.ownerToken, json: { isRead: true } });
    expect((await h.call('POST', '/api/alerts/mark-all-read', { token: seed.memberToken })).status).toBe(200);
    for (const s of [steps('done', 'running', 'pending', 'pending'), steps('done', 'done', 'running', 'pending')]) {
      const res = await post('running', s);
      expect(res.status).toBe(201);
      expect((await bodyOf.accepted(res)).alertId).toBe(alertId);
    }
    expect(await jobs()).toEqual(['workflow.started']);
    expect(await unread(seed.ownerToken)).toBe(0);
    expect(await unread(seed.memberToken)).toBe(0);
    let alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${alertId}`, { token: seed.ownerToken }));
    expect(alert.level).toBe('INFO'); // derived, the sent level is ignored
    expect(alert.workflow!.steps.map((s) => s.state)).toEqual(['done', 'done', 'running', 'pending']);

    // The steps array is replaced, never merged.
    await post('running', [{ name: 'only-step', state: 'running' }]);
    alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${alertId}`, { token: seed.ownerToken }));
    expect(alert.workflow!.steps).toEqual([{ name: 'only-step', state: 'running' }]);

    const passed = await post('passed', steps('done', 'done', 'done', 'done'));
    expect(passed.status).toBe(201);
    expect(await jobs()).toEqual(['workflow.started', 'workflow.finished']);
    alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${alertId}`, { token: seed.ownerToken }));
    expect(alert).toMatchObject({ level: 'SUCCESS', isRead: false, workflow: { runId: 'run-77', state: 'passed', error: null } });
    expect(alert.workflow!.steps[0]).toEqual({ name: 'checkout', state: 'done', seconds: 12.5 });
    expect(await unread(seed.ownerToken)).toBe(1);
    expect(await unread(seed.memberToken)).toBe(1);

    // A retried terminal POST: the content is updated, silently: no second notification, no resurfacing.
    await h.call('PATCH', `/api/alerts/${alertId}`, { token: seed.ownerToken, json: { isRead: true } });
    const retried = await post('passed', steps('done', 'done', 'done', 'done'), { title: 'Deploy api v1.4 (retried)' });
    expect(retried.status).toBe(201);
    expect((await bodyOf.accepted(retried)).workflow).toEqual({ runId: 'run-77', state: 'passed', created: false });
    expect(await jobs()).toEqual(['workflow.started', 'workflow.finished']);
    alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${alertId}`, { token: seed.ownerToken }));
    expect(alert).toMatchObject({ title: 'Deploy api v1.4 (retried)', isRead: true });
    expect(await unread(seed.ownerToken)).toBe(0);
    // Moving out of a terminal state is refused.
    const reopen = await post('running', steps('running'));
    expect(reopen.status).toBe(409);
    expect((await bodyOf.problem(reopen)).type).toBe('http://alertbridge.test/problems/workflow-run-finished');

    expect(await h.count('alerts')).toBe(1);
    expect((await h.services.usage.report(seed.ws.id)).months[0]!.events).toBe(1);
    // Still one alert in the list.
    const page = await bodyOf.page(await h.call('GET', '/api/channels/deploys/alerts', { token: seed.ownerToken }));
    expect(page.alerts).toHaveLength(1);
  });

  it('a failed run shows ERROR with its log tail, whatever level is sent', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const post = (body: object) => h.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, { json: body });
    const { alertId } = await bodyOf.accepted(await post({ title: 'Deploy web', workflow: { runId: 'r2', state: 'running', steps: steps('running') } }));
    await h.call('PATCH', `/api/alerts/${alertId}`, { token: seed.ownerToken, json: { isRead: true } });
    const failed = await post({ title: 'Deploy web', level: 'success', workflow: { runId: 'r2', state: 'failed', steps: steps('failed'), error: 'npm ERR! exit 1\nTests: 3 failed' } });
    expect(failed.status).toBe(201);
    expect((await bodyOf.accepted(failed)).workflow).toEqual({ runId: 'r2', state: 'failed', created: false });
    expect(await jobs()).toEqual(['workflow.started', 'workflow.finished']);
    expect((await h.services.usage.report(seed.ws.id)).months[0]!.events).toBe(1);
    const alert = await bodyOf.alert(await h.call('GET', `/api/alerts/${alertId}`, { token: seed.ownerToken }));
    expect(alert.isRead).toBe(false); // resurfaced for the owner who had read it
    expect(alert.level).toBe('ERROR');
    expect(alert.workflow).toMatchObject({ state: 'failed', error: 'npm ERR! exit 1\nTests: 3 failed' });
    // failed → passed is refused: a failed run can never show as success.
    expect((await post({ title: 'x', workflow: { runId: 'r2', state: 'passed', steps: [] } })).status).toBe(409);
  });

  it('runs are per channel and count once each; plain alerts count one each', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const wf = { runId: 'same-id', state: 'running', steps: [] };
    expect((await h.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, { json: { title: 'a', workflow: wf } })).status).toBe(201);
    expect((await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'b', workflow: wf } })).status).toBe(201);
    expect((await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'c' } })).status).toBe(201);
    expect((await h.services.usage.report(seed.ws.id)).months[0]!.events).toBe(3);
  });

  it('a refused run update sent together with other webhooks fails alone, leaving nothing half-stored', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const channel = (await h.services.webhookChannels.find(seed.deploys.webhookToken))!;
    const wf = (state: string) => ({ runId: 'r9', state, steps: steps(state === 'running' ? 'running' : 'done') });
    await h.services.ingest.ingest(channel, WebhookPayload.parse({ title: 'run', workflow: wf('passed') }), []);
    const counts = async () => ({ alerts: await h.count('alerts'), jobs: await h.count('notification_jobs'), events: await h.count('alert_events') });
    const before = await counts();
    const replays = h.services.engine === 'sqlite' ? (h.services as SqliteServices).batcher.stats.replays : 0;

    // Sent in one event-loop turn: on SQLite one group commit, replayed unit by unit when the middle one throws.
    const results = await Promise.allSettled([
      h.services.ingest.ingest(channel, WebhookPayload.parse({ title: 'before' }), []),
      h.services.ingest.ingest(channel, WebhookPayload.parse({ title: 'run', workflow: wf('failed') }), []),
      h.services.ingest.ingest(channel, WebhookPayload.parse({ title: 'after' }), []),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.code).toBe('workflow-run-finished');
    if (h.services.engine === 'sqlite') expect((h.services as SqliteServices).batcher.stats.replays).toBe(replays + 1);
    const titles = await h.query('SELECT title, workflow_state AS state FROM alerts ORDER BY id');
    expect(titles).toEqual([{ title: 'run', state: 'passed' }, { title: 'before', state: null }, { title: 'after', state: null }]);
    // Exactly the two accepted alerts' outbox and stream rows, and their billing.
    expect(await counts()).toEqual({ alerts: before.alerts + 2, jobs: before.jobs + 2, events: before.events + 2 });
    expect((await h.services.usage.report(seed.ws.id)).months[0]!.events).toBe(3);
  });

  it('a run first reported already finished notifies once', async () => {
    h = await startHarness();
    const seed = await seedWorkspace(h.services);
    const res = await h.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, { json: { title: 'nightly', workflow: { runId: 'n1', state: 'passed', steps: steps('done') } } });
    expect(res.status).toBe(201);
    expect(await h.query('SELECT kind FROM notification_jobs')).toEqual([{ kind: 'workflow.finished' }]);
  });
});

describe('workflow runs with attachments', () => {
  it('an update without attachments keeps them; one with attachments replaces them and removes the files no alert uses', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const { png, jpeg } = await import('../media/fixtures.js');
    // A released file waits for the sweep after its grace period (test/reliability/media-grace.test.ts;
    // 0, delete at release, is refused on PostgreSQL): aged past it here, then swept.
    h = await startHarness({ env: { MEDIA_ORPHAN_GRACE_HOURS: '1' } });
    const seed = await seedWorkspace(h.services);
    const files = () => fs.readdirSync(path.join(h.dir, 'media')).filter((f) => !f.startsWith('.')).sort();
    const post = (state: string, attachments?: object[]) =>
      h.call('POST', `/api/webhook/${seed.deploys.webhookToken}`, { json: { title: 'Deploy', workflow: { runId: 'r-media', state, steps: [] }, ...(attachments ? { attachments } : {}) } });
    const b64 = (b: Buffer) => b.toString('base64');
    /** Waits for the release after the commit to list `listed` files, then sweeps them as due. */
    const sweep = async (listed: number) => {
      await expect.poll(() => h.count('media_orphans')).toBe(listed);
      await h.exec('UPDATE media_orphans SET orphaned_at = orphaned_at - ?', [2 * 60 * 60 * 1000]);
      return (await h.services.maintenance()).orphanedMedia;
    };

    const first = await bodyOf.accepted(await post('running', [{ data: b64(png(1)), name: 'first.png' }]));
    // Another alert shares the second screenshot's bytes: that file must survive the replacement.
    expect((await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: { title: 'shared', attachments: [{ data: b64(png(2)) }] } })).status).toBe(201);
    expect(files()).toHaveLength(2);

    expect((await post('running')).status).toBe(201);
    const kept = await bodyOf.alert(await h.call('GET', `/api/alerts/${first.alertId}`, { token: seed.ownerToken }));
    expect(kept.attachments.map((a) => a.name)).toEqual(['first.png']);

    expect((await post('running', [{ data: b64(png(2)), name: 'second.png' }])).status).toBe(201);
    const replaced = await bodyOf.alert(await h.call('GET', `/api/alerts/${first.alertId}`, { token: seed.ownerToken }));
    expect(replaced.attachments.map((a) => a.name)).toEqual(['second.png']);
    // first.png's file is gone once swept (nothing references it); the shared one stays.
    expect(await sweep(1)).toBe(1);
    expect(files()).toHaveLength(1);
    expect((await h.app.request(new URL(replaced.attachments[0]!.url).pathname)).status).toBe(200);
    expect((await h.app.request(new URL(kept.attachments[0]!.url).pathname)).status).toBe(404);

    expect((await post('passed', [{ data: b64(jpeg()), name: 'final.jpg' }])).status).toBe(201);
    expect(await sweep(0)).toBe(0);
    expect(files()).toHaveLength(2); // the shared PNG (still used by the other alert) and the JPEG
  });
});
