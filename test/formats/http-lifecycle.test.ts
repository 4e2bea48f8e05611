import { describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { fixture, servedHarness } from './fixture.js';

/** Integrations close what they opened, over real HTTP: Alertmanager, Grafana, GitHub runs and native runs. */
const serve = servedHarness();

describe('integrations resolve and reopen their alerts', () => {
  it('Alertmanager: resolved resolves (by "Alertmanager"), firing again reopens; a person\'s resolve of a firing group holds through repeats', async () => {
    const { server, seed } = await serve();
    const post = (body: unknown) =>
      fetch(`${server.url}/api/webhook/${seed.general.webhookToken}/alertmanager`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const api = (method: string, path: string, json?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${seed.ownerToken}`, ...(json === undefined ? {} : { 'content-type': 'application/json' }) },
        body: json === undefined ? undefined : JSON.stringify(json),
      });
    const read = async (id: string) => bodyOf.alert(await api('GET', `/api/alerts/${id}`));
    const firing = fixture('alertmanager', 'firing');
    const resolved = fixture('alertmanager', 'resolved');

    const first = await post(firing);
    const alertId = first.headers.get('x-alertbridge-alert-id')!;
    expect(await read(alertId)).toMatchObject({ status: 'open', occurrences: 1 });

    const done = await post(resolved);
    expect(done.headers.get('x-alertbridge-alert-id')).toBe(alertId);
    expect(await read(alertId)).toMatchObject({ status: 'resolved', level: 'SUCCESS', resolvedBy: { id: null, name: 'Alertmanager' } });

    await post(firing);
    expect(await read(alertId)).toMatchObject({ status: 'open', occurrences: 2, resolvedBy: null });

    // A person resolves while the group still fires: its repeats change nothing.
    expect((await api('PATCH', `/api/alerts/${alertId}`, { status: 'resolved' })).status).toBe(200);
    const resend = structuredClone(firing) as { alerts: { startsAt: string }[] };
    for (const a of resend.alerts) a.startsAt = '2024-01-01T16:00:00.000Z';
    await post(resend);
    expect(await read(alertId)).toMatchObject({ status: 'resolved', resolvedBy: { id: seed.owner.id, name: 'Olive Owner' } });
    // The source resolves too, then fires again: that is news, so it reopens.
    await post(resolved);
    expect((await read(alertId)).resolvedBy).toEqual({ id: seed.owner.id, name: 'Olive Owner' });
    await post(firing);
    expect(await read(alertId)).toMatchObject({ status: 'open', occurrences: 3 });

    const history = (await (await api('GET', `/api/alerts/${alertId}/history`)).json()) as { history: { action: string; actor: { name: string }; via: string }[] };
    expect(history.history.map((e) => `${e.action} by ${e.actor.name} via ${e.via}`)).toEqual([
      'resolved by Alertmanager via integration',
      'reopened by Alertmanager via integration',
      'resolved by Olive Owner via api',
      'reopened by Alertmanager via integration',
    ]);
  });

  it('Grafana resolved resolves by "Grafana"; a GitHub run that succeeds and a native run that passes resolve theirs; a failed run stays open', async () => {
    const { server, seed } = await serve();
    const token = seed.general.webhookToken;
    const read = async (id: string) =>
      bodyOf.alert(await fetch(`${server.url}/api/alerts/${id}`, { headers: { authorization: `Bearer ${seed.ownerToken}` } }));
    const postTo = (suffix: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/api/webhook/${token}${suffix}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

    const grafana = fixture('grafana', 'firing') as { status: string; alerts: { status: string }[] };
    const gFiring = await postTo('/grafana', grafana);
    const grafanaId = gFiring.headers.get('x-alertbridge-alert-id')!;
    await postTo('/grafana', { ...grafana, status: 'resolved', alerts: grafana.alerts.map((a) => ({ ...a, status: 'resolved' })) });
    expect(await read(grafanaId)).toMatchObject({ status: 'resolved', resolvedBy: { id: null, name: 'Grafana' } });

    const requested = fixture('github', 'workflow_run.requested');
    const completed = fixture('github', 'workflow_run.completed') as { workflow_run: { conclusion: string } };
    const run = await postTo('/github', requested, { 'x-github-event': 'workflow_run' });
    const runId = run.headers.get('x-alertbridge-alert-id')!;
    expect((await read(runId)).status).toBe('open');
    await postTo('/github', { ...completed, workflow_run: { ...completed.workflow_run, conclusion: 'success' } }, { 'x-github-event': 'workflow_run' });
    expect(await read(runId)).toMatchObject({ status: 'resolved', resolvedBy: { id: null, name: 'GitHub' } });

    const native = async (runKey: string, state: string) =>
      (await bodyOf.accepted(await postTo('', { title: `Deploy ${runKey}`, source: 'ci', workflow: { runId: runKey, state, steps: [] } }))).alertId;
    const passed = await native('r-1', 'running');
    await native('r-1', 'passed');
    expect(await read(passed)).toMatchObject({ status: 'resolved', resolvedBy: { id: null, name: 'ci' } });
    const failed = await native('r-2', 'running');
    await native('r-2', 'failed');
    expect((await read(failed)).status).toBe('open');
  });

  it('a sender\'s dedupKey never reaches a group or a run: the same text is another alert', async () => {
    const { server, seed, h } = await serve();
    const token = seed.general.webhookToken;
    await fetch(`${server.url}/api/webhook/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Deploy', workflow: { runId: 'shared-key', state: 'running', steps: [] } }),
    });
    const keyed = await fetch(`${server.url}/api/webhook/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Deploy', dedupKey: 'shared-key', status: 'resolved' }),
    });
    expect(keyed.status).toBe(202);
    expect(await h.count('alerts')).toBe(1);
    const rows = await h.query<{ status: string }>('SELECT status FROM alerts');
    expect(rows).toEqual([{ status: 'open' }]);
  });
});
