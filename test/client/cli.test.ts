import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AlertbridgeApi, sendAlert } from '../../packages/client/src/index.js';
import { png } from '../media/fixtures.js';
import { eventually } from '../helpers/poll.js';
import { seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { runCli, startCli } from './cli-process.js';

/**
 * The real `alertbridge` binary (node_modules/.bin/alertbridge, as `npx alertbridge` runs it) against
 * the real service over loopback (both engines: vitest.config.ts ON_POSTGRES): send, exit codes,
 * run as a workflow run and a heartbeat, watch, and the read commands.
 */
// Every test spawns Node processes: on a busy 2-core machine one start-up takes seconds.
describe('alertbridge CLI', { timeout: 120_000 }, () => {
  let h: Harness;
  let seed: Awaited<ReturnType<typeof seedWorkspace>>;
  let api: AlertbridgeApi;
  let env: Record<string, string>;

  beforeAll(async () => {
    h = await startHarness({ serve: true });
    seed = await seedWorkspace(h.services);
    api = new AlertbridgeApi({ baseUrl: h.base, token: seed.ownerToken });
    env = { ALERTBRIDGE_WEBHOOK_URL: `${h.base}/api/webhook/${seed.deploys.webhookToken}`, ALERTBRIDGE_URL: h.base, ALERTBRIDGE_TOKEN: seed.ownerToken };
  });
  afterAll(async () => h?.close());

  it('send: fields, an attachment and a message from stdin; prints the alert id', async () => {
    const file = path.join(h.dir, 'shot.png');
    fs.writeFileSync(file, png());
    const r = await runCli(['send', 'Disk almost full', '--level', 'warning', '--emoji', 'warning', '--field', 'host=db-1', '--field', 'usage=91 % = high', '--attach', file, '--link', 'https://grafana.example.com/d/1', '--message', '-'], env, 'db-1 is at 91 %\n');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = r.stdout.trim();
    expect(id).toMatch(/^alt_/);
    const alert = await api.alert(id);
    expect(alert).toMatchObject({ title: 'Disk almost full', level: 'WARNING', emoji: '⚠️', message: 'db-1 is at 91 %', linkUrl: 'https://grafana.example.com/d/1' });
    expect('fields' in alert && alert.fields.map((f) => [f.label, f.value])).toEqual([['host', 'db-1'], ['usage', '91 % = high']]);
    expect(alert.attachments.map((a) => ('name' in a ? a.name : null))).toEqual(['shot.png']);

    const json = await runCli(['send', 'dedup me', '--dedup-key', 'disk-db-1', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ success: true, destination: { channel: { slug: 'deploys' } } });
    const resolved = await runCli(['send', 'dedup me', '--dedup-key', 'disk-db-1', '--resolve'], env);
    expect((await api.alert(resolved.stdout.trim())).status).toBe('resolved');
  });

  it('exits 1 on a refusal with the problem title on stderr, 2 on a usage error', async () => {
    const refused = await runCli(['send', '   '], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^alertbridge: invalid payload \(400\)\n/);
    expect(refused.stderr).toContain('title:');
    const unknown = await runCli(['send', 'x'], { ...env, ALERTBRIDGE_WEBHOOK_URL: `${h.base}/api/webhook/whk_nope` });
    expect([unknown.code, unknown.stderr.split('\n')[0]]).toEqual([1, 'alertbridge: invalid webhook token (404)']);
    const notFound = await runCli(['show', 'alt_nope'], env);
    expect([notFound.code, notFound.stderr.split('\n')[0]]).toEqual([1, 'alertbridge: not found (404)']);
    const noToken = await runCli(['list'], { ...env, ALERTBRIDGE_TOKEN: 'ab_' + '0'.repeat(48) });
    expect([noToken.code, noToken.stderr.split('\n')[0]]).toEqual([1, 'alertbridge: Unauthorized (401)']);
    // Spawned side by side: each is a Node start-up, slow on a busy machine.
    const usage = [['send'], ['send', 'a', 'b'], ['send', 'x', '--nope'], ['send', 'x', '--field', 'novalue'], ['send', 'x', '--resolve'], ['frobnicate'], [], ['run', '--', ''], ['run', 'echo'], ['show']];
    const results = await Promise.all(usage.map((args) => runCli(args, env)));
    results.forEach((r, i) => {
      expect(r.code, usage[i]!.join(' ')).toBe(2);
      expect(r.stdout, usage[i]!.join(' ')).toBe('');
    });
    const noUrl = await runCli(['send', 'x'], {});
    expect([noUrl.code, noUrl.stderr.split('\n')[0]]).toEqual([2, 'alertbridge: the webhook URL is missing: pass --webhook-url or set ALERTBRIDGE_WEBHOOK_URL']);
    expect((await runCli(['--help'], {})).code).toBe(0);
  });

  it('run: a passing command is one workflow alert, passed, with its duration', async () => {
    const r = await runCli(['run', '--name', 'Nightly build', '--', process.execPath, '-e', "console.log('built')"], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('built\n');
    const runs = (await collect(api.alerts('deploys'))).filter((a) => 'title' in a && a.title === 'Nightly build');
    expect(runs).toHaveLength(1);
    const run = runs[0]!;
    expect(run).toMatchObject({ level: 'SUCCESS', workflow: { state: 'passed', error: null, steps: [{ name: 'Nightly build', state: 'done' }] } });
    expect('fields' in run && Object.fromEntries(run.fields.map((f) => [f.label, f.value]))).toMatchObject({ 'exit status': '0', duration: expect.stringMatching(/^\d+\.\d s$/) });
  });

  it('run: a failing command fails the run with the last 50 lines and exits with its status', async () => {
    // stdout and stderr are two pipes: the stderr line comes later so their order is known.
    const script = "for (let i = 1; i <= 60; i++) console.log('line ' + i); setTimeout(() => { console.error('line 61'); process.exit(3); }, 200)";
    const r = await runCli(['run', '--', process.execPath, '-e', script], env);
    expect(r.code).toBe(3);
    expect(r.stdout).toContain('line 60\n');
    expect(r.stderr).toContain('line 61\n');
    const run = (await collect(api.alerts('deploys'))).find((a) => 'workflow' in a && a.workflow?.state === 'failed');
    expect(run).toMatchObject({ level: 'ERROR', workflow: { steps: [{ state: 'failed', info: 'exit status 3' }] } });
    const log = ('workflow' in run! && run.workflow?.error) || '';
    expect(log.split('\n')).toEqual(Array.from({ length: 50 }, (_, i) => `line ${i + 12}`));
  });

  it('run --heartbeat: pings /start and the exit status', async () => {
    const check = await h.services.heartbeats.checks.create({ channelId: seed.general.id, name: 'Backup', period: '1h', grace: '10m' });
    const ping = `${h.base}/ping/${check.pingUuid}`;
    const status = async () => (await api.heartbeats()).find((c) => c.id === check.id)?.status;
    const failed = await runCli(['run', '--heartbeat', ping, '--', process.execPath, '-e', 'process.exit(4)'], {});
    expect(failed.code).toBe(4);
    expect(await status()).toBe('down');
    const ok = await runCli(['run', '--heartbeat', ping, '--', process.execPath, '-e', ''], {});
    expect(ok.code).toBe(0);
    expect(await status()).toBe('up');
  });

  it('watch: prints a line for an alert posted after it started, and stops on SIGINT', async () => {
    const w = startCli(['watch', '--channel', 'general'], env);
    try {
      await eventually(() => w.out.stderr.includes('watching'), 'watch to connect', { seen: () => w.out });
      await sendAlert(`${h.base}/api/webhook/${seed.deploys.webhookToken}`, { title: 'not watched' });
      await sendAlert(`${h.base}/api/webhook/${seed.general.webhookToken}`, { title: 'Payment failed', level: 'error' });
      await eventually(() => w.out.stdout.includes('Payment failed'), 'the line', { seen: () => w.out });
      expect(w.out.stdout).toMatch(/^\d\d:\d\d:\d\d {2}ERROR {4}#general {2}Payment failed\n$/);
    } finally {
      w.child.kill('SIGINT');
    }
    expect(await w.exited).toBe(0);
  });

  it('list, show, read, ack and resolve', async () => {
    const id = (await sendAlert(`${h.base}/api/webhook/${seed.general.webhookToken}`, { title: 'Queue backlog', level: 'warning' })).alertId;
    const channels = await runCli(['list'], env);
    expect(channels.stdout).toMatch(/^general\s+\d+ unread {2}General$/m);
    const alerts = await runCli(['list', 'general', '--limit', '1', '--json'], env);
    expect((JSON.parse(alerts.stdout) as { id: string }[]).map((a) => a.id)).toEqual([id]);
    const shown = await runCli(['show', id], env);
    expect(shown.stdout).toContain('Queue backlog\n');
    expect(shown.stdout).toMatch(/level\s+WARNING/);
    expect((await runCli(['read', id], env)).stdout).toBe(`${id} read\n`);
    expect((await runCli(['ack', id], env)).stdout).toBe(`${id} acknowledged\n`);
    expect((await runCli(['resolve', id], env)).stdout).toBe(`${id} resolved\n`);
    expect(await api.alert(id)).toMatchObject({ isRead: true, status: 'resolved' });
  });
});

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
