import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { png } from '../media/fixtures.js';
import { startHarness, type Harness, postAlert, seedWorkspace } from '../helpers/harness.js';
import { startNotifier } from '../../src/notify/outbox-worker.js';
import { notifyHarness, rows, type NotifyHarness } from './setup.js';

const OWNER = 'owner@acme.test';
const MEMBER = 'member@acme.test';
const STRANGER = 'stranger@other.test';

let t: NotifyHarness | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('recipients', () => {
  it('a public channel mails every workspace member, never another workspace', async () => {
    t = await notifyHarness();
    await t.post(t.seed.general.webhookToken, { title: 'Disk almost full', level: 'warning' });
    await t.sink.waitFor(2);
    await t.notifier.whenIdle();
    expect(t.sink.messages.flatMap((m) => m.rcpt).sort()).toEqual([MEMBER, OWNER]);
    expect(t.sink.to(STRANGER)).toHaveLength(0);
    expect(t.sink.messages[0]!.from).toBe('"Alertbridge" <alerts@alertbridge.test>');
    expect(String((t.sink.to(OWNER)[0]!.headers.get('to') as { text: string }).text)).toBe('"Olive Owner" <owner@acme.test>');
  });

  it('a private channel mails only its explicit members who are still in the workspace', async () => {
    t = await notifyHarness();
    const { seed, h } = t;
    // A stale channel membership of someone who is not (or no longer) in the workspace must not receive anything.
    await h.exec('INSERT INTO channel_members (channel_id, user_id, created_at) VALUES (?, ?, 0)', [seed.secret.id, seed.stranger.id]);
    await t.post(seed.secret.webhookToken, { title: 'Suspicious login', level: 'error' });
    await t.sink.waitFor(1);
    await t.notifier.whenIdle();
    expect(t.sink.messages.map((m) => m.rcpt)).toEqual([[OWNER]]);
  });

  it('a member removed before the send is re-checked and skipped', async () => {
    t = await notifyHarness();
    const { seed, h } = t;
    await t.notifier.stop();
    await h.services.accounts.addChannelMember(seed.secret.id, seed.member.id);
    await t.post(seed.secret.webhookToken, { title: 'Queued while the worker was down' });
    await h.services.accounts.removeChannelMember(seed.secret.id, seed.member.id);
    t.notifier = startNotifier(h.services, { retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 10 } });
    await t.sink.waitFor(1);
    await t.notifier.whenIdle();
    expect(t.sink.messages.map((m) => m.rcpt)).toEqual([[OWNER]]);
  });

  it('preferences: none silences a channel, important lets only warnings and errors through', async () => {
    t = await notifyHarness();
    const { seed, h } = t;
    await h.services.notifyPrefs.set(seed.owner.id, seed.general.id, 'none');
    await h.services.notifyPrefs.set(seed.member.id, seed.general.id, 'important');
    for (const level of ['info', 'success', 'warning', 'error']) await t.post(seed.general.webhookToken, { title: `level ${level}`, level });
    await t.sink.waitFor(2);
    await t.notifier.whenIdle();
    expect(t.sink.to(OWNER)).toHaveLength(0);
    expect(t.sink.to(MEMBER).map((m) => m.subject).sort()).toEqual(['[ERROR] #general — level error', '[WARNING] #general — level warning']);
    // Other channels keep the default (all).
    await t.post(seed.deploys.webhookToken, { title: 'fyi', level: 'info' });
    await t.sink.waitFor(4);
  });

  it('without SMTP_URL the service says e-mail is off and marks jobs done without deliveries', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const h: Harness = await startHarness({ overrides: { logger } });
    try {
      const seed = await seedWorkspace(h.services);
      const notifier = startNotifier(h.services);
      expect(notifier.emailEnabled).toBe(false);
      expect(lines.filter((l) => l.includes('e-mail off: set SMTP_URL'))).toHaveLength(1);
      await postAlert(h, seed.general.webhookToken, { title: 'nobody is mailed' });
      await notifier.whenIdle();
      expect(await rows(h, 'SELECT state, last_error AS "lastError" FROM notification_jobs')).toEqual([{ state: 'done', lastError: 'e-mail off (no SMTP_URL): nothing sent' }]);
      expect(await h.count('notification_deliveries')).toBe(0);
      await notifier.stop();
      expect(lines.filter((l) => l.includes('e-mail off'))).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});

describe('content', () => {
  it('HTML and text parts render the whole card, escaped', async () => {
    t = await notifyHarness();
    const { seed } = t;
    const body = await t.post(seed.general.webhookToken, {
      title: 'Checkout <b>down</b> & "payments" failing',
      level: 'error',
      emoji: 'fire',
      message: 'Error rate above 5% for 10 minutes.\nSecond line <script>alert(1)</script>',
      fields: [
        { label: 'Region', value: 'eu-west-1', inline: true },
        { label: 'Error rate', value: 7.5, inline: true },
        { label: 'Runbook', value: 'Restart the <pod> & check the queue' },
      ],
      linkUrl: 'https://status.example.com/incidents/42?x=1&y=2',
      linkText: 'Open incident',
      source: 'prometheus',
      actor: { name: 'Ada Lovelace', email: 'ada@example.com', company: 'Analytical' },
      attachments: [{ data: png().toString('base64'), type: 'image', name: 'graph' }],
    });
    await t.sink.waitFor(2);
    const mail = t.sink.to(OWNER)[0]!;
    expect(mail.subject).toBe('[ERROR] #general — Checkout <b>down</b> & "payments" failing');
    expect(mail.headers.get('auto-submitted')).toBe('auto-generated');
    expect(mail.headers.get('x-alertbridge-alert')).toBe(body.alertId);

    const html = mail.html;
    expect(html).toContain('Checkout &lt;b&gt;down&lt;/b&gt; &amp; &quot;payments&quot; failing');
    expect(html).not.toContain('<b>down</b>');
    expect(html).not.toContain('<script>');
    expect(html).toContain('Second line &lt;script&gt;');
    expect(html).toContain('🔥');
    expect(html).toContain('#dc2626'); // error colour
    expect(html).toMatch(/Region<\/div>\s*<div[^>]*>eu-west-1/);
    expect(html).toContain('7.5');
    expect(html).toContain('Restart the &lt;pod&gt; &amp; check the queue');
    // inline fields share one grid row; the non-inline one spans it
    expect(html).toMatch(/<tr><td valign="top" width="33%"[^]*Region[^]*Error rate[^]*<\/tr>\s*<tr><td valign="top" width="100%" colspan="3"[^]*Runbook/);
    expect(html).toContain('href="https://status.example.com/incidents/42?x=1&amp;y=2"');
    expect(html).toContain('>Open incident</a>');
    expect(html).toMatch(/<img src="http:\/\/alertbridge\.test\/media\/[0-9a-f]{64}\.png" alt="graph"/);
    expect(html).toContain('Ada Lovelace');
    expect(html).toContain('prometheus');
    expect(html).not.toMatch(/<style/i);

    const text = mail.text;
    expect(text).toContain('🔥 Checkout <b>down</b> & "payments" failing');
    expect(text).toContain('ERROR · 📢 #general · Acme');
    expect(text).toContain('Second line <script>alert(1)</script>');
    expect(text).toContain('Region: eu-west-1');
    expect(text).toContain('Error rate: 7.5');
    expect(text).toContain('Open incident: https://status.example.com/incidents/42?x=1&y=2');
    expect(text).toMatch(/graph: http:\/\/alertbridge\.test\/media\/[0-9a-f]{64}\.png/);
    expect(text).toContain('By Ada Lovelace (ada@example.com · Analytical)');
    expect(text).toContain('Source: prometheus');
    // The footer links this recipient's own settings and one-click unsubscribe (test/notify/dashboard-links.test.ts follows them).
    expect(text).toContain(`Change your notification level: ${t.h.config.publicUrl}/channels/${t.seed.general.id}#notify-title`);
    expect(text).toMatch(/Unsubscribe from #general: http\S+\/unsubscribe\?u=/);
  });

  it('a workflow run mails twice per recipient (started, finished with steps and error tail); a retried terminal POST adds none', async () => {
    t = await notifyHarness();
    const { seed } = t;
    const run = (state: string, steps: object[], error?: string) => ({
      title: 'Deploy api',
      linkUrl: 'https://ci.example.com/runs/7',
      linkText: 'View run',
      workflow: { runId: 'deploy-7', state, steps, ...(error ? { error } : {}) },
    });
    const log = Array.from({ length: 60 }, (_, i) => `log line ${i + 1}`).join('\n') + '\nError: migration 0042 <locked>';
    await t.post(seed.deploys.webhookToken, run('running', [{ name: 'build', state: 'running' }]));
    await t.sink.waitFor(2);
    await t.post(seed.deploys.webhookToken, run('running', [{ name: 'build', state: 'done', seconds: 42 }, { name: 'migrate', state: 'running' }]));
    await t.post(seed.deploys.webhookToken, run('running', [{ name: 'build', state: 'done', seconds: 42 }, { name: 'migrate', state: 'running', seconds: 3 }]));
    const failed = run('failed', [{ name: 'build', state: 'done', seconds: 42 }, { name: 'migrate', state: 'failed', seconds: 95 }, { name: 'smoke test', state: 'skipped' }], log);
    await t.post(seed.deploys.webhookToken, failed);
    await t.sink.waitFor(4);
    await t.post(seed.deploys.webhookToken, failed); // the sender retries its terminal POST
    await t.notifier.whenIdle();

    for (const who of [OWNER, MEMBER]) {
      const mails = t.sink.to(who);
      expect(mails.map((m) => m.subject)).toEqual(['[Started] #deploys — Deploy api', '[Failed] #deploys — Deploy api']);
      const [started, finished] = mails as [(typeof mails)[0], (typeof mails)[0]];
      expect(started.text).toContain('INFO · run started');
      expect(started.text).toContain('build — running');
      // the finished mail renders the terminal row: steps with state and seconds, the log tail, threaded under the start
      expect(finished.text).toContain('ERROR · run failed');
      expect(finished.text).toContain('✓ build — done · 42s');
      expect(finished.text).toContain('✗ migrate — failed · 1m 35s');
      expect(finished.text).toContain('– smoke test — skipped');
      expect(finished.text).toContain('Error log (tail):');
      expect(finished.text).toContain('Error: migration 0042 <locked>');
      expect(finished.text).toContain('log line 60');
      expect(finished.text).not.toContain('log line 1\n');
      expect(finished.html).toContain('Error: migration 0042 &lt;locked&gt;');
      expect(finished.html).toContain('smoke test');
      expect(finished.html).toContain('1m 35s');
      expect(finished.html).toContain('>View run</a>');
      expect(finished.inReplyTo).toBe(started.messageId);
    }
    expect(t.sink.messages).toHaveLength(4);
  });
});
