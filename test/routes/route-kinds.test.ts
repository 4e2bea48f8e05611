import { afterEach, describe, expect, it } from 'vitest';
import { startRouteWorker } from '../../src/notify/routes/start.js';
import type { RouteWorker } from '../../src/notify/routes/route-worker.js';
import { startFakeReceiver, type Answer, type ReceivedRequest } from '../helpers/fake-receiver.js';
import { postAlert, seedWorkspace, startHarness, type Harness } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';

let h: Harness | undefined;
let worker: RouteWorker | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  for (const close of closers.splice(0)) await close();
  await h?.close();
  h = undefined;
});

async function setup(answer?: (q: ReceivedRequest, i: number) => Answer) {
  h = await startHarness({ serve: true, env: { ROUTES_ALLOW_PRIVATE: '1' } });
  const seed = await seedWorkspace(h.services);
  const token = (await h.services.accounts.rotateWebhook(seed.general.id)).webhookToken;
  const r = await startFakeReceiver(answer);
  closers.push(r.close);
  worker = startRouteWorker(h.services);
  return { seed, token, routes: h.services.routes.routes, r };
}

const ALERT = { title: 'Disk full', level: 'ERROR', emoji: '🔥', message: 'db-1 at 98%', fields: [{ label: 'host', value: 'db-1', inline: true }], linkUrl: 'https://grafana.example.com/d/1', linkText: 'Dashboard', source: 'grafana' };
const run = (state: string) => ({ title: 'Deploy api', level: state === 'failed' ? 'ERROR' : 'INFO', workflow: { runId: 'run-7', state, steps: [{ name: 'build', state: state === 'running' ? 'running' : 'done' }] } });
const settled = async () => eventually(async () => (await h!.query<{ state: string }>('SELECT state FROM route_deliveries')).every((d) => d.state === 'sent'), 'every delivery sent');

describe('each kind speaks its receiver\'s native format', () => {
  it('slack: Block Kit with header, fields, link buttons and context', async () => {
    const { seed, token, routes, r } = await setup(() => ({ status: 200, body: 'ok' }));
    await routes.create(seed.general.id, 'slack', { url: `${r.url}/services/T0/B0/XYZ` }, {});
    await postAlert(h!, token, ALERT);
    const q = await eventually(() => r.received[0], 'the Slack post');
    expect(q.method).toBe('POST');
    expect(q.path).toBe('/services/T0/B0/XYZ');
    const body = q.json() as { text: string; blocks: { type: string; [k: string]: unknown }[] };
    expect(body.text).toBe('🔥 Disk full');
    expect(body.blocks.map((b) => b.type)).toEqual(['header', 'section', 'section', 'actions', 'context']);
    expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: '🔥 Disk full', emoji: true } });
    expect(body.blocks[2]).toEqual({ type: 'section', fields: [{ type: 'mrkdwn', text: '*host*\ndb-1' }] });
    expect((body.blocks[3] as unknown as { elements: { url: string }[] }).elements.map((e) => e.url)).toEqual(['https://grafana.example.com/d/1', `${h!.base}/feed/c/${seed.general.id}`]);
  });

  it('discord: an embed sent with ?wait=true, then edited in place with PATCH on the kept message id', async () => {
    const { seed, token, routes, r } = await setup((q) => ({ status: 200, body: q.method === 'POST' ? '{"id":"1177000000000000001"}' : '{}' }));
    await routes.create(seed.general.id, 'discord', { url: `${r.url}/api/webhooks/123/tok` }, { events: ['alert.opened', 'alert.updated'] });
    await postAlert(h!, token, run('running'));
    await eventually(() => r.received[0], 'the Discord post');
    await settled();
    await postAlert(h!, token, run('failed'));
    await eventually(() => r.received[1], 'the Discord edit');
    const [post, edit] = r.received;
    expect(post!.method).toBe('POST');
    expect(post!.path).toBe('/api/webhooks/123/tok?wait=true');
    const embed = (post!.json() as { embeds: Record<string, unknown>[] }).embeds[0]!;
    expect(embed).toMatchObject({ title: expect.stringContaining('Deploy api'), color: 0x2563eb, footer: { text: expect.stringContaining('Opened') } });
    expect(edit!.method).toBe('PATCH');
    expect(edit!.path).toBe('/api/webhooks/123/tok/messages/1177000000000000001');
    expect((edit!.json() as { embeds: Record<string, unknown>[] }).embeds[0]).toMatchObject({ color: 0xdc2626, footer: { text: expect.stringContaining('Updated') } });
  });

  it('teams: an Adaptive Card 1.4 in a message for the Workflows webhook', async () => {
    const { seed, token, routes, r } = await setup(() => ({ status: 202 }));
    await routes.create(seed.general.id, 'teams', { url: `${r.url}/workflows/abc` }, {});
    await postAlert(h!, token, ALERT);
    const q = await eventually(() => r.received[0], 'the Teams post');
    const body = q.json() as { type: string; attachments: { contentType: string; content: { type: string; version: string; body: { type: string }[]; actions: { type: string }[] } }[] };
    expect(body.type).toBe('message');
    expect(body.attachments[0]!.contentType).toBe('application/vnd.microsoft.card.adaptive');
    const card = body.attachments[0]!.content;
    expect([card.type, card.version]).toEqual(['AdaptiveCard', '1.4']);
    expect(card.body.map((b) => b.type)).toEqual(['TextBlock', 'TextBlock', 'TextBlock', 'FactSet']);
    expect(card.actions.map((a) => a.type)).toEqual(['Action.OpenUrl', 'Action.OpenUrl']);
  });

  it('telegram: sendMessage with HTML, then editMessageText on the kept message_id', async () => {
    const { seed, token, routes, r } = await setup((q) => ({ status: 200, body: q.path.endsWith('/sendMessage') ? '{"ok":true,"result":{"message_id":42}}' : '{"ok":true,"result":{}}' }));
    await routes.create(seed.general.id, 'telegram', { botToken: '123:ABC', chatId: '-100555', apiUrl: r.url }, { events: ['alert.opened', 'alert.updated'] });
    await postAlert(h!, token, run('running'));
    await eventually(() => r.received[0], 'sendMessage');
    await settled();
    await postAlert(h!, token, run('failed')); // stays open: an alert.updated edit
    await eventually(() => r.received[1], 'editMessageText');
    const [send, edit] = r.received;
    expect(send!.path).toBe('/bot123:ABC/sendMessage');
    expect(send!.json()).toMatchObject({ chat_id: '-100555', parse_mode: 'HTML', text: expect.stringMatching(/^<b>.*Deploy api<\/b>/) });
    expect(edit!.path).toBe('/bot123:ABC/editMessageText');
    expect(edit!.json()).toMatchObject({ chat_id: '-100555', message_id: 42, parse_mode: 'HTML', text: expect.stringContaining('Updated') });
  });

  it('matrix: m.room.message with formatted_body, then an m.replace edit; the transaction id is the delivery id', async () => {
    const { seed, token, routes, r } = await setup((_q, i) => ({ status: 200, body: `{"event_id":"$ev${i}"}` }));
    await routes.create(seed.general.id, 'matrix', { url: r.url, accessToken: 'syt_secret', room: '!room:example.org' }, { events: ['alert.opened', 'alert.updated'] });
    await postAlert(h!, token, run('running'));
    await eventually(() => r.received[0], 'the Matrix send');
    await settled();
    await postAlert(h!, token, run('failed')); // stays open: an alert.updated edit
    await eventually(() => r.received[1], 'the Matrix edit');
    const [send, edit] = r.received;
    expect(send!.method).toBe('PUT');
    expect(send!.path).toMatch(/^\/_matrix\/client\/v3\/rooms\/!room%3Aexample\.org\/send\/m\.room\.message\/msg_rd\d+$/);
    expect(send!.headers.authorization).toBe('Bearer syt_secret');
    expect(send!.json()).toMatchObject({ msgtype: 'm.text', format: 'org.matrix.custom.html', formatted_body: expect.stringContaining('<h4>') });
    expect(edit!.json()).toMatchObject({ 'm.relates_to': { rel_type: 'm.replace', event_id: '$ev0' }, 'm.new_content': { msgtype: 'm.text' } });
    expect(edit!.path).not.toBe(send!.path);
  });

  it('ntfy: the message as body; title, priority from the level, click and tags from the emoji as headers; the token as Bearer', async () => {
    const { seed, token, routes, r } = await setup();
    await routes.create(seed.general.id, 'ntfy', { url: `${r.url}/alerts-topic`, token: 'tk_secret' }, {});
    await postAlert(h!, token, ALERT);
    const q = await eventually(() => r.received[0], 'the ntfy publish');
    expect(q.method).toBe('POST');
    expect(q.path).toBe('/alerts-topic');
    expect(q.headers).toMatchObject({ title: 'Disk full', priority: '5', tags: 'fire,error,opened', click: 'https://grafana.example.com/d/1', authorization: 'Bearer tk_secret' });
    expect(q.body).toBe('db-1 at 98%\nhost: db-1');
    // A warning's ⚠️ is ntfy's `warning` tag, which is also the level's word: sent once, or ntfy shows it twice.
    await postAlert(h!, token, { title: 'Disk 91%', level: 'WARNING' });
    const warning = await eventually(() => r.received[1], 'the second publish');
    expect(warning.headers.tags).toBe('warning,opened');
  });
});
