import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatOfExt } from '../../src/media/formats.js';
import { startHarness, type Harness, seedWorkspace } from '../helpers/harness.js';

/**
 * Names every JavaScript object answers to. A lookup keyed by a sender's or
 * reader's text must treat them as unknown: `{}[name]` finds a function or
 * Object.prototype, and such values once reached SQLite and answered 500.
 */
const NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__', 'prototype'];
const VARIANTS = NAMES.flatMap((n) => [n, `:${n}:`, ` ${n} `, `${n}\n`]);

let h: Harness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
beforeAll(async () => {
  h = await startHarness();
  seed = await seedWorkspace(h.services);
});
afterAll(async () => h.close());

const enc = encodeURIComponent;

describe.each(VARIANTS)('the name %j', (name) => {
  it('as a webhook field is an alert or a 400, never a 500', async () => {
    for (const payload of [
      { title: name, emoji: name, source: name, fields: [{ label: name, value: name }], actor: name },
      { title: 't', level: name },
      { title: 't', attachments: [{ url: 'https://example.com/a.png', type: name }] },
      { title: 't', workflow: { runId: name, state: name, steps: [{ name, state: name }] } },
      { title: 't', actor: { name, email: `a@${name.trim()}.com` } },
    ]) {
      const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { json: payload });
      expect([201, 400]).toContain(res.status);
    }
  });

  it('as a webhook token, channel, alert id, problem name or query value is a 404 or 400', async () => {
    const token = seed.ownerToken;
    expect((await h.call('POST', `/api/webhook/${enc(name)}`, { json: { title: 't' } })).status).toBe(404);
    expect((await h.call('GET', `/api/channels/${enc(name)}/alerts`, { token })).status).toBe(404);
    expect((await h.call('GET', `/api/channels/general/alerts?level=${enc(name)}`, { token })).status).toBe(400);
    expect((await h.call('GET', `/api/channels/general/alerts?cursor=${enc(name)}`, { token })).status).toBe(400);
    expect((await h.call('GET', `/api/alerts/${enc(name)}`, { token })).status).toBe(404);
    expect((await h.call('PATCH', `/api/alerts/${enc(name)}`, { token, json: { isRead: true } })).status).toBe(404);
    expect((await h.call('POST', '/api/alerts/mark-all-read', { token, json: { channelId: name } })).status).toBe(404);
    expect((await h.call('GET', `/problems/${enc(name)}`)).status).toBe(404);
    expect((await h.call('GET', `/media/${enc(name)}`)).status).toBe(404);
  });

  it('as a query or body key changes nothing', async () => {
    const token = seed.ownerToken;
    expect((await h.call('GET', `/api/channels/general/alerts?${enc(name)}=1`, { token })).status).toBe(200);
    const res = await h.call('POST', '/api/alerts/mark-all-read', { token, headers: { 'content-type': 'application/json' }, body: `{${JSON.stringify(name)}:{"channelId":"x"}}` });
    expect(res.status).toBe(200);
  });

  it('as a sign-in address or next is the sign-in page or a refusal on this site, never a 500', async () => {
    const page = await h.call('GET', `/sign-in?next=${enc(name)}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const kept = /name="next" value="([^"]*)"/.exec(await page.text())![1]!;
    expect(new URL(kept, 'http://alertbridge.test').origin).toBe('http://alertbridge.test');
    const posted = await h.call('POST', '/sign-in', {
      headers: { origin: 'http://alertbridge.test', accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: name, password: 'not the password', next: name }).toString(),
    });
    // 429 once this file's many attempts from one (unknown) client address pass the per-address limit.
    expect([401, 429]).toContain(posted.status);
  });

  it('is no media extension', () => {
    expect(formatOfExt(name)).toBeNull();
  });
});
