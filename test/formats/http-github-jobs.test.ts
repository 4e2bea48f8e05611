import { describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import type { Harness as Harness } from '../helpers/harness.js';
import { fixture, servedHarness } from './fixture.js';

/** GitHub's workflow_job events merged into the run's steps, over real HTTP. */
let h: Harness;
let server: { url: string } | undefined;
const serve = servedHarness();

async function start() {
  let seed;
  ({ h, server, seed } = await serve());
  return seed;
}

let delivery = 0;
function deliver(token: string, event: string, body: unknown) {
  return fetch(`${server!.url}/api/webhook/${token}/github`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': `d-${++delivery}` },
    body: JSON.stringify(body),
  });
}

async function steps(alertId: string, token: string) {
  const res = await fetch(`${server!.url}/api/alerts/${alertId}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  const { workflow } = await bodyOf.alert(res);
  if (!workflow) throw new Error(`alert ${alertId} has no workflow`);
  return workflow;
}

/** The fixture's job as another job of the same run, in another state. */
function job(name: string, action: string, status: string, conclusion: string | null = null) {
  const body = structuredClone(fixture('github', 'workflow_job.completed')) as { action: string; workflow_job: Record<string, unknown> };
  body.action = action;
  Object.assign(body.workflow_job, { name, status, conclusion });
  if (status !== 'completed') body.workflow_job.completed_at = null;
  return body;
}

describe('workflow_job', () => {
  it('jobs merge into the run as one step each (keyed by name); the run update keeps them; a job after completion is ignored', async () => {
    const seed = await start();
    const token = seed.general.webhookToken;
    const run = await deliver(token, 'workflow_run', fixture('github', 'workflow_run.requested'));
    const alertId = run.headers.get('x-alertbridge-alert-id')!;

    for (const body of [job('lint', 'in_progress', 'in_progress'), job('test (ubuntu-latest)', 'in_progress', 'in_progress'), fixture('github', 'workflow_job.completed')]) {
      const res = await deliver(token, 'workflow_job', body);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-alertbridge-alert-id')).toBe(alertId);
    }
    // A late "in_progress" for a job already completed does not undo it.
    await deliver(token, 'workflow_job', job('test (ubuntu-latest)', 'in_progress', 'in_progress'));
    expect((await steps(alertId, seed.ownerToken)).steps).toEqual([
      { name: 'lint', state: 'running' },
      { name: 'test (ubuntu-latest)', state: 'done', seconds: 22 },
    ]);
    await deliver(token, 'workflow_job', job('lint', 'completed', 'completed', 'failure'));

    const done = await deliver(token, 'workflow_run', fixture('github', 'workflow_run.completed'));
    expect(done.headers.get('x-alertbridge-alert-id')).toBe(alertId);
    const wf = await steps(alertId, seed.ownerToken);
    expect(wf.state).toBe('failed');
    expect(wf.steps.map((s) => [s.name, s.state])).toEqual([
      ['lint', 'failed'],
      ['test (ubuntu-latest)', 'done'],
    ]);

    const late = await deliver(token, 'workflow_job', job('deploy', 'queued', 'queued'));
    expect(late.status).toBe(200);
    expect(await bodyOf.githubIgnored(late)).toEqual({ ignored: 'workflow_job', reason: 'the run already completed' });
    expect((await steps(alertId, seed.ownerToken)).steps).toHaveLength(2);
    const lateRun = await deliver(token, 'workflow_run', fixture('github', 'workflow_run.requested'));
    expect(lateRun.status).toBe(200);
    expect((await bodyOf.githubIgnored(lateRun)).ignored).toBe('workflow_run');
    expect(await h.count('alerts')).toBe(1);
    expect((await h.services.usage.report(seed.ws.id)).months[0]!.events).toBe(1);
  });

  it('a job before its workflow_run creates the run, which the workflow_run event then completes with the steps kept', async () => {
    const seed = await start();
    const token = seed.general.webhookToken;
    const first = await deliver(token, 'workflow_job', fixture('github', 'workflow_job.completed'));
    expect(first.status).toBe(200);
    const alertId = first.headers.get('x-alertbridge-alert-id')!;
    expect((await bodyOf.accepted(first)).workflow).toMatchObject({ state: 'running', created: true });
    const done = await deliver(token, 'workflow_run', fixture('github', 'workflow_run.completed'));
    expect(done.headers.get('x-alertbridge-alert-id')).toBe(alertId);
    const res = await fetch(`${server!.url}/api/alerts/${alertId}`, { headers: { authorization: `Bearer ${seed.ownerToken}` } });
    const alert = await bodyOf.alert(res);
    expect(alert.title).toBe('Codertocat/Hello-World · Build #562');
    expect(alert.workflow).toMatchObject({ state: 'failed', error: 'failure', steps: [{ name: 'test (ubuntu-latest)', state: 'done', seconds: 22 }] });
  });

  it('a redelivered job event (same X-GitHub-Delivery) replays its answer', async () => {
    const seed = await start();
    const body = JSON.stringify(fixture('github', 'workflow_job.completed'));
    const send = () =>
      fetch(`${server!.url}/api/webhook/${seed.general.webhookToken}/github`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'workflow_job', 'x-github-delivery': 'same-guid' },
        body,
      });
    const a = await send();
    const b = await send();
    expect(b.headers.get('idempotency-replayed')).toBe('true');
    expect(await b.text()).toBe(await a.text());
  });
});
