import { describe, expect, it } from 'vitest';
import { bodyOf } from '../helpers/bodies.js';
import { fixture, servedHarness } from './fixture.js';

/**
 * A source whose FIRST message already says "done" stores a resolved alert, as the same message after an
 * open one would resolve it: a native run first POSTed `passed`, a GitHub run first seen completed with
 * success, an Alertmanager or Grafana group first seen `resolved`. Over real HTTP, on the file's engine.
 */
const serve = servedHarness();

describe('a first message that is already resolved', () => {
  it('stores the alert resolved by its source (native run, GitHub, Alertmanager, Grafana); failed runs stay open', async () => {
    const { server, seed } = await serve();
    const token = seed.general.webhookToken;
    const read = async (id: string) =>
      bodyOf.alert(await fetch(`${server.url}/api/alerts/${id}`, { headers: { authorization: `Bearer ${seed.ownerToken}` } }));
    const history = async (id: string) => {
      const res = await fetch(`${server.url}/api/alerts/${id}/history`, { headers: { authorization: `Bearer ${seed.ownerToken}` } });
      return ((await res.json()) as { history: { action: string; actor: { name: string }; via: string }[] }).history.map(
        (e) => `${e.action} by ${e.actor.name} via ${e.via}`,
      );
    };
    const postTo = (suffix: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/api/webhook/${token}${suffix}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

    const native = await postTo('', { title: 'Nightly build', source: 'ci', workflow: { runId: 'n-1', state: 'passed', steps: [] } });
    expect(native.status).toBe(201);
    const nativeId = (await bodyOf.accepted(native)).alertId;
    expect(await read(nativeId)).toMatchObject({ status: 'resolved', level: 'SUCCESS', resolvedBy: { id: null, name: 'ci' }, occurrences: 1 });
    expect(await history(nativeId)).toEqual(['resolved by ci via webhook']);
    // Retrying the terminal POST changes nothing.
    expect((await postTo('', { title: 'Nightly build', source: 'ci', workflow: { runId: 'n-1', state: 'passed', steps: [] } })).status).toBe(201);
    expect(await history(nativeId)).toEqual(['resolved by ci via webhook']);

    const failed = await postTo('', { title: 'Nightly tests', workflow: { runId: 'n-2', state: 'failed', steps: [] } });
    expect((await read((await bodyOf.accepted(failed)).alertId)).status).toBe('open');

    const completed = fixture('github', 'workflow_run.completed') as { workflow_run: { conclusion: string } };
    const github = await postTo('/github', { ...completed, workflow_run: { ...completed.workflow_run, conclusion: 'success' } }, { 'x-github-event': 'workflow_run' });
    const githubId = github.headers.get('x-alertbridge-alert-id')!;
    expect(await read(githubId)).toMatchObject({ status: 'resolved', resolvedBy: { id: null, name: 'GitHub' } });

    const am = await postTo('/alertmanager', fixture('alertmanager', 'resolved'));
    const amId = am.headers.get('x-alertbridge-alert-id')!;
    expect(await read(amId)).toMatchObject({ status: 'resolved', level: 'SUCCESS', resolvedBy: { id: null, name: 'Alertmanager' }, occurrences: 1 });
    expect(await history(amId)).toEqual(['resolved by Alertmanager via integration']);
    // The group firing afterwards reopens it, as after any resolve.
    await postTo('/alertmanager', fixture('alertmanager', 'firing'));
    expect(await read(amId)).toMatchObject({ status: 'open', occurrences: 2 });

    const grafana = fixture('grafana', 'firing') as { status: string; alerts: { status: string }[] };
    const g = await postTo('/grafana', { ...grafana, status: 'resolved', alerts: grafana.alerts.map((a) => ({ ...a, status: 'resolved' })) });
    expect(await read(g.headers.get('x-alertbridge-alert-id')!)).toMatchObject({ status: 'resolved', resolvedBy: { id: null, name: 'Grafana' } });
  });
});
