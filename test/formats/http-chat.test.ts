import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { mapDiscord } from '../../src/domain/formats/discord.js';
import { mapSlack } from '../../src/domain/formats/slack.js';
import { png } from '../media/fixtures.js';
import { bodyOf } from '../helpers/bodies.js';
import type { Harness as Harness } from '../helpers/harness.js';
import { fixture, servedForBlock } from './fixture.js';

/**
 * Slack's and Discord's drop-in paths over real HTTP: each provider fixture is
 * posted as the provider's client would, and the stored alert is read back
 * through the read API. One service for the file: each test reads back its own
 * alerts, or counts from the count before its requests.
 */
let h: Harness;
let server: { url: string } | undefined;
let origin: http.Server | undefined;
afterEach(async () => {
  if (origin) await new Promise((r) => origin!.close(r));
  origin = undefined;
});

/** Loopback fetches allowed, so the image origin below counts as a reachable sender host. */
const serve = servedForBlock({ ATTACHMENT_FETCH_ALLOW_PRIVATE: '1' });
async function start() {
  let seed;
  ({ h, server, seed } = await serve());
  return seed;
}

/** Serves /ok.png; every other path is a 404 (an image that cannot be fetched). */
async function imageOrigin() {
  origin = http.createServer((req, res) => {
    if (req.url === '/ok.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(png());
    res.writeHead(404).end('gone');
  });
  await new Promise<void>((r) => origin!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${server!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

async function readBack(alertId: string, token: string) {
  const res = await fetch(`${server!.url}/api/alerts/${alertId}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(200);
  return bodyOf.alert(res);
}

const alertCount = () => h.count('alerts');

describe('POST /api/webhook/{token}/slack', () => {
  for (const name of ['text', 'blocks']) {
    it(`stores the ${name} fixture as the mapper reads it and answers 200 text/plain "ok"`, async () => {
      const seed = await start();
      const body = fixture('slack', name);
      const res = await post(`/api/webhook/${seed.general.webhookToken}/slack`, body);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await res.text()).toBe('ok');
      const id = res.headers.get('x-alertbridge-alert-id')!;
      expect(id).toMatch(/\S/);
      const want = mapSlack(body).payload;
      const got = await readBack(id, seed.ownerToken);
      expect(got.title).toBe(want.title);
      expect(got.level).toBe(want.level.toUpperCase());
      expect(got.message).toBe(want.message);
      expect(got.fields ?? []).toEqual(want.fields ?? []);
      expect(got.linkUrl ?? undefined).toBe(want.linkUrl);
    });
  }

  it('legacy attachments: the level from the colour, the fetchable image attached, the dead one skipped and noted', async () => {
    const seed = await start();
    const base = await imageOrigin();
    const body = fixture('slack', 'attachments') as { attachments: Record<string, unknown>[] };
    body.attachments[0]!.image_url = `${base}/ok.png`;
    body.attachments[0]!.thumb_url = `${base}/missing.png`;
    const res = await post(`/api/webhook/${seed.general.webhookToken}/slack`, body);
    expect(res.status).toBe(200);
    const got = await readBack(res.headers.get('x-alertbridge-alert-id')!, seed.ownerToken);
    const want = mapSlack(body).payload;
    expect(got.title).toBe('Slack API Documentation');
    expect(got.level).toBe('SUCCESS');
    expect(got.linkUrl).toBe('https://api.slack.com/');
    expect(got.fields).toEqual(want.fields);
    expect(got.message).toBe(`${want.message}\n\n(1 image could not be fetched and was skipped: ${base}/missing.png)`);
    expect(got.attachments).toHaveLength(1);
    expect(got.attachments[0]).toMatchObject({ mime: 'image/png', type: 'image', size: png().length });
  });

  it('a body with nothing to show is a 400 problem and stores nothing', async () => {
    const seed = await start();
    const before = await alertCount();
    const res = await post(`/api/webhook/${seed.general.webhookToken}/slack`, { username: 'bot' });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(await alertCount()).toBe(before);
  });

  it('malformed JSON is a 400 and a form body a 415; an unknown token a 404', async () => {
    const seed = await start();
    const before = await alertCount();
    const bad = await fetch(`${server!.url}/api/webhook/${seed.general.webhookToken}/slack`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text": ' });
    expect(bad.status).toBe(400);
    const form = await fetch(`${server!.url}/api/webhook/${seed.general.webhookToken}/slack`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(form.status).toBe(415);
    const unknown = await post('/api/webhook/nope/slack', { text: 'x' });
    expect(unknown.status).toBe(404);
    expect(await alertCount()).toBe(before);
  });

  it('an Idempotency-Key repeat stores one alert and answers the same id', async () => {
    const seed = await start();
    const before = await alertCount();
    const path = `/api/webhook/${seed.general.webhookToken}/slack`;
    const a = await post(path, { text: 'deploy done' }, { 'idempotency-key': 'k-1' });
    const b = await post(path, { text: 'deploy done' }, { 'idempotency-key': 'k-1' });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await b.text()).toBe('ok');
    expect(b.headers.get('x-alertbridge-alert-id')).toBe(a.headers.get('x-alertbridge-alert-id'));
    expect(await alertCount()).toBe(before + 1);
  });

  it('the plain webhook path still answers 201 beside the format paths', async () => {
    const seed = await start();
    const res = await post(`/api/webhook/${seed.general.webhookToken}`, { title: 'plain' });
    expect(res.status).toBe(201);
  });
});

describe('POST /api/webhook/{token}/discord', () => {
  it('stores the content fixture and answers 204 with no body', async () => {
    const seed = await start();
    const body = fixture('discord', 'content');
    const res = await post(`/api/webhook/${seed.general.webhookToken}/discord`, body);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    const got = await readBack(res.headers.get('x-alertbridge-alert-id')!, seed.ownerToken);
    const want = mapDiscord(body).payload;
    expect(got.title).toBe(want.title);
    expect(got.message).toBe(want.message);
    expect(got.level).toBe(want.level.toUpperCase());
  });

  it('embeds with ?wait=true: the alert as mapped, and Discord\'s message object as the answer', async () => {
    const seed = await start();
    const base = await imageOrigin();
    const body = fixture('discord', 'embeds') as { content: string; embeds: Record<string, unknown>[] };
    body.embeds[0]!.image = { url: `${base}/ok.png` };
    body.embeds[0]!.thumbnail = { url: `${base}/missing.png` };
    const res = await post(`/api/webhook/${seed.general.webhookToken}/discord?wait=true`, body);
    expect(res.status).toBe(200);
    const msg = await bodyOf.discordMessage(res);
    expect(msg.id).toMatch(/^\d+$/);
    expect(msg.type).toBe(0);
    expect(msg.channel_id).toMatch(/^\d+$/);
    expect(msg.author).toMatchObject({ id: expect.stringMatching(/^\d+$/), username: 'Webhook', bot: true });
    expect(msg.content).toBe(body.content);
    expect(msg.embeds[0]).toMatchObject({ type: 'rich', title: 'Title', url: 'https://google.com/', color: 15258703 });
    expect(msg.attachments).toHaveLength(1);
    expect(msg.pinned).toBe(false);
    const got = await readBack(res.headers.get('x-alertbridge-alert-id')!, seed.ownerToken);
    const want = mapDiscord(body).payload;
    expect(got.title).toBe('Title');
    expect(got.linkUrl).toBe('https://google.com/');
    expect(got.level).toBe(want.level.toUpperCase());
    expect(got.fields).toEqual(want.fields);
    expect(got.message).toBe(`${want.message}\n\n(1 image could not be fetched and was skipped: ${base}/missing.png)`);
    expect(got.attachments).toHaveLength(1);
  });

  it('a replayed ?wait=true (same Idempotency-Key) answers exactly the first answer, files included', async () => {
    const seed = await start();
    const before = await alertCount();
    const base = await imageOrigin();
    const body = fixture('discord', 'embeds') as { content: string; embeds: Record<string, unknown>[] };
    body.embeds[0]!.image = { url: `${base}/ok.png` };
    const send = () =>
      fetch(`${server!.url}/api/webhook/${seed.general.webhookToken}/discord?wait=true`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'discord-replay-1' },
        body: JSON.stringify(body),
      });
    const first = await send();
    const firstText = await first.text();
    const firstBody = await bodyOf.discordMessage(new Response(firstText, { headers: first.headers }));
    expect(firstBody.attachments).toHaveLength(1);
    const replay = await send();
    expect(replay.status).toBe(200);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(replay.headers.get('x-alertbridge-alert-id')).toBe(first.headers.get('x-alertbridge-alert-id'));
    // Byte for byte: the same snowflake, timestamp and attachment URLs, in the same key order.
    expect(await replay.text()).toBe(firstText);
    expect(await alertCount()).toBe(before + 1);
  });

  it('multipart with payload_json and files[0]: the file is attached', async () => {
    const seed = await start();
    const form = new FormData();
    form.append('payload_json', JSON.stringify({ content: 'build log attached' }));
    form.append('files[0]', new Blob([new Uint8Array(png())], { type: 'image/png' }), 'shot.png');
    const res = await fetch(`${server!.url}/api/webhook/${seed.general.webhookToken}/discord`, { method: 'POST', body: form });
    expect(res.status).toBe(204);
    const got = await readBack(res.headers.get('x-alertbridge-alert-id')!, seed.ownerToken);
    expect(got.title).toBe('build log attached');
    expect(got.attachments).toEqual([expect.objectContaining({ name: 'shot.png', mime: 'image/png' })]);
  });

  it('a multipart body without payload_json is a 400 naming the part', async () => {
    const seed = await start();
    const before = await alertCount();
    const form = new FormData();
    form.append('payload', JSON.stringify({ content: 'x' }));
    const res = await fetch(`${server!.url}/api/webhook/${seed.general.webhookToken}/discord`, { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect((await bodyOf.problem(res)).detail).toMatch(/payload_json/);
    expect(await alertCount()).toBe(before);
  });
});
