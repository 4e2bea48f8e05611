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
