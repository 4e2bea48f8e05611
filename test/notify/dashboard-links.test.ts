import { afterEach, describe, expect, it } from 'vitest';
import { notifyHarness, type NotifyHarness } from './setup.js';

let t: NotifyHarness | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('notification e-mails link to the dashboard', () => {
  it('carry RFC 8058 one-click unsubscribe headers whose POST lowers only that channel, for only that recipient', async () => {
    t = await notifyHarness();
    const { seed, h } = t;
    await t.post(seed.general.webhookToken, { title: 'Disk almost full', level: 'warning' });
    await t.sink.waitFor(2);
    await t.notifier.whenIdle();
    const mail = t.sink.to('member@acme.test')[0]!;

    expect(mail.rawHeader('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const listUnsubscribe = mail.rawHeader('List-Unsubscribe') ?? '';
    const url = /^<(.+)>$/.exec(listUnsubscribe)?.[1];
    expect(url).toMatch(new RegExp(`^${h.config.publicUrl}/unsubscribe\\?`));

    // Both parts name the channel's dashboard page, the settings and the same unsubscribe link; no CLI command any more.
    const channelUrl = `${h.config.publicUrl}/channels/${seed.general.id}`;
    expect(mail.text).toContain(`Open #general in Alertbridge: ${channelUrl}`);
    expect(mail.text).toContain(`Unsubscribe from #general: ${url}`);
    expect(mail.text).not.toContain('notify set');
    expect(mail.html).toContain(`href="${channelUrl}"`);
    expect(mail.html).toContain(`href="${channelUrl}#notify-title"`);
    expect(mail.html).toContain(`href="${url!.replace(/&/g, '&amp;')}"`);

    // The mail provider's one click: a POST with no session and no Origin.
    const target = new URL(url!);
    const res = await h.app.request(target.pathname + target.search, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(res.status).toBe(200);
    expect((await h.services.notifyPrefs.recipient(seed.general.id, seed.member.id))!.level).toBe('none');
    expect((await h.services.notifyPrefs.recipient(seed.general.id, seed.owner.id))!.level).toBe('all');

    // The next alert reaches the owner only.
    const before = t.sink.messages.length;
    await t.post(seed.general.webhookToken, { title: 'Disk full', level: 'error' });
    await t.sink.waitFor(before + 1);
    await t.notifier.whenIdle();
    expect(t.sink.messages.slice(before).flatMap((m) => m.rcpt)).toEqual(['owner@acme.test']);
  });
});
