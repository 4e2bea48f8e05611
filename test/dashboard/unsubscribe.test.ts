import { afterEach, describe, expect, it } from 'vitest';
import { openServices } from '../../src/services.js';
import { seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('one-click unsubscribe (RFC 8058)', () => {
  it('a mail provider’s POST, with no session and no Origin, lowers that channel to none for that recipient only', async () => {
    h = await startDashboard({ serve: false });
    const seed = await seedWorkspace(h.services);
    // What the e-mail worker puts in the member's notification (test/notify/dashboard-links.test.ts follows a real one).
    const mail = h.services.unsubscribe.forEmail(seed.member.id, seed.general.id);
    expect(mail.headers['List-Unsubscribe-Post']).toBe('List-Unsubscribe=One-Click');
    expect(mail.headers['List-Unsubscribe']).toBe(`<${mail.unsubscribeUrl}>`);
    const path = new URL(mail.unsubscribeUrl).pathname + new URL(mail.unsubscribeUrl).search;

    // Opening the link (a scanner, or the person) changes nothing.
    const page = await new DashClient(h).get(path);
    expect(page.html).toContain('Stop e-mails from General');
    expect((await h.services.notifyPrefs.recipient(seed.general.id, seed.member.id))!.level).toBe('all');

    const res = await h.app.request(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(res.status).toBe(200);
    expect((await h.services.notifyPrefs.recipient(seed.general.id, seed.member.id))!.level).toBe('none');
    expect((await h.services.notifyPrefs.recipient(seed.general.id, seed.owner.id))!.level).toBe('all');
  });

  it('the page’s button, pressed by a person with no session: 303 to a result shown once; a reload or a copied URL shows nothing and acts on nothing', async () => {
    h = await startDashboard({ serve: false });
    const seed = await seedWorkspace(h.services);
    const link = new URL(h.services.unsubscribe.url(seed.member.id, seed.general.id));
    const person = new DashClient(h);
    const page = await person.get(link.pathname + link.search);
    // The button is not the mail provider's one click: it posts no List-Unsubscribe field.
    expect(page.html).not.toContain('One-Click');
    // Press it twice, as two tabs would: each result opens only with its own browser key, and a changed seal opens nothing.
    const first = await person.post(link.pathname + link.search);
    const firstKey = person.cookies.get('ab_flash')!;
    const sealed = new URL(first.res.headers.get('location')!, 'http://x').searchParams.get('flash')!;
    // One character inside, not at the tail, whose spare bits may not count.
    for (const [key, seal] of [[firstKey, `${sealed.slice(0, 10)}${sealed[10] === 'A' ? 'B' : 'A'}${sealed.slice(11)}`], ['x'.repeat(43), sealed], ['%00', sealed], [firstKey, 'x'.repeat(9000)]] as const) {
      const res = await h.app.request(`/unsubscribe/done?flash=${encodeURIComponent(seal)}`, { headers: { cookie: `ab_flash=${key}`, accept: 'text/html' } });
      expect(res.status).toBe(200);
      expect(await res.text()).not.toContain('General');
    }
    const done = await person.submit(link.pathname + link.search);
    expect(person.cookies.get('ab_flash')).toBeUndefined();
    expect(done.posted.status).toBe(303);
    expect(done.location).toMatch(/^\/unsubscribe\/done\?flash=[A-Za-z0-9_-]+$/);
    expect(done.html).toContain('You will get no more notification e-mails from General.');
    expect((await h.services.notifyPrefs.recipient(seed.general.id, seed.member.id))!.level).toBe('none');

    // Someone else opening the same URL (it may be shared) learns nothing; a reload neither.
    const stranger = await new DashClient(h).get(done.location!);
    expect(stranger.res.status).toBe(200);
    expect(stranger.html).not.toContain('General');
    const reload = await person.get(done.location!);
    expect(reload.html).toContain('Nothing more to do');
    expect(reload.html).not.toContain('General');
    // Turned on again, a reload does not turn it off a second time.
    await h.services.notifyPrefs.set(seed.member.id, seed.general.id, 'all');
    await person.get(done.location!);
    expect((await h.services.notifyPrefs.recipient(seed.general.id, seed.member.id))!.level).toBe('all');
  });

  it('refuses a link whose user, channel or signature was changed', async () => {
    h = await startDashboard({ serve: false });
    const seed = await seedWorkspace(h.services);
    const url = new URL(h.services.unsubscribe.url(seed.member.id, seed.general.id));
    const sig = url.searchParams.get('s')!;
    // Another first character, always (a fixed 'x' left the signature unchanged when it began with one: 1 run in 64).
    const tampered = (sig.startsWith('x') ? 'y' : 'x') + sig.slice(1);
    for (const [k, v] of [['u', seed.owner.id], ['c', seed.deploys.id], ['s', tampered]] as const) {
      const bad = new URL(url);
      bad.searchParams.set(k, v);
      const res = await h.app.request(bad.pathname + bad.search, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
      expect(res.status).toBe(404);
    }
    expect((await h.services.notifyPrefs.list(seed.owner.id)).every((l) => l.level === 'all')).toBe(true);
    // The key lives in the database: another process on the same installation (the SQLite file, or another node on PostgreSQL) signs alike.
    const other = await openServices(h.config);
    try {
      expect(other.unsubscribe.url(seed.member.id, seed.general.id)).toBe(url.toString());
    } finally {
      await other.close();
    }
  });
});
