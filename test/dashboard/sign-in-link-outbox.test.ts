import { afterEach, describe, expect, it } from 'vitest';
import { startAccountMailer } from '../../src/notify/account-mail-worker.js';
import { SmtpMailer } from '../../src/notify/mailer.js';
import { seedWorkspace } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { FAST_RETRY } from '../notify/setup.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/**
 * Issue 22, item 4: POST /sign-in/link must not tell a known address from an unknown one, by its
 * body or by its time. The link e-mail goes through the account e-mail outbox, so the request never
 * waits for SMTP; the row holds the link sealed, and blanks it once sent; a send outlives a restart
 * of the worker and is retried like a notification.
 */
let h: DashHarness | undefined;
let sink: SmtpSink | undefined;
afterEach(async () => {
  await h?.close();
  await sink?.close();
  h = undefined;
  sink = undefined;
});

const mailerFor = (s: SmtpSink) => new SmtpMailer(s.url, 'Alertbridge <ab@test>');
const TOKEN = /http:\/\/alertbridge\.test\/auth\/link\?t=([A-Za-z0-9_-]{43})/;
/** The page with the typed address replaced. */
const without = (html: string, address: string) => html.split(address).join('ADDRESS');

interface Row extends Record<string, unknown> {
  state: string;
  sealed: string | null;
  attempts: number;
  to: string;
}
const rows = (d: DashHarness) => d.query<Row>('SELECT state, sealed_link AS sealed, attempts, to_address AS "to" FROM account_emails ORDER BY created_at, id');

/** The request's answer, or 'still waiting' when it takes longer than `ms`. */
async function within<T>(ms: number, p: Promise<T>): Promise<T | 'still waiting'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still waiting'>((resolve) => (timer = setTimeout(() => resolve('still waiting'), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('POST /sign-in/link (item 4)', () => {
  it('answers a known and an unknown address alike and at once while SMTP holds the e-mail; the link arrives afterwards', async () => {
    sink = await SmtpSink.start();
    // The SMTP server takes the message but withholds its final answer: a request that waited for it would hang.
    sink.hold();
    h = await startDashboard({ serve: false, mailer: mailerFor(sink) });
    await seedWorkspace(h.services);
    const c = new DashClient(h);
    const known = await within(1500, c.submit('/sign-in/link', { email: 'owner@acme.test' }));
    const unknown = await within(1500, c.submit('/sign-in/link', { email: 'ghost@acme.test' }));
    if (known === 'still waiting' || unknown === 'still waiting') throw new Error(`the request waited for SMTP (known: ${typeof known}, unknown: ${typeof unknown})`);
    expect(known.res.status).toBe(200);
    expect(unknown.res.status).toBe(200);
    expect(without(known.html, 'owner@acme.test')).toBe(without(unknown.html, 'ghost@acme.test'));
    expect(known.html).toContain('a sign-in link is on its way');

    // The worker is mid-send now; the row holds the link only sealed.
    await eventually(() => sink!.holding === 1, 'the held send');
    const [sending] = await rows(h);
    expect(sending).toMatchObject({ state: 'sending', to: 'owner@acme.test', attempts: 1 });
    sink.release();
    await eventually(() => sink!.messages.some((m) => m.acknowledged), 'the delivered e-mail');
    const message = sink.messages[0]!;
    expect(message.rcpt).toEqual(['owner@acme.test']);
    expect(message.subject).toBe('Your Alertbridge sign-in link');
    const t = TOKEN.exec(message.text)![1]!;
    expect(sending!.sealed).toBeTruthy();
    expect(sending!.sealed).not.toContain(t);
    expect(sending!.sealed).not.toContain(t.slice(0, 12));
    await h.accountMailer!.whenIdle();
    expect(await rows(h)).toEqual([{ state: 'sent', sealed: null, attempts: 1, to: 'owner@acme.test' }]);
    // The e-mailed link signs in.
    expect((await new DashClient(h).post('/auth/link', { t }, { csrf: null })).res.status).toBe(303);
    expect(sink.messages).toHaveLength(1);
  });

  it('a link queued while the worker is down is sent when it starts again, through a refused first attempt', async () => {
    sink = await SmtpSink.start();
    h = await startDashboard({ serve: false, mailer: mailerFor(sink) });
    await seedWorkspace(h.services);
    await h.accountMailer!.stop();
    await new DashClient(h).submit('/sign-in/link', { email: 'member@acme.test' });
    expect(await rows(h)).toMatchObject([{ state: 'pending', attempts: 0, to: 'member@acme.test' }]);
    expect(sink.attempts).toBe(0);
    sink.rejectNext(1, 451);
    const worker = startAccountMailer(h.services, { mailer: mailerFor(sink), retry: FAST_RETRY })!;
    try {
      await sink.waitFor(1);
      await worker.whenIdle();
      await eventually(async () => (await rows(h!))[0]?.state === 'sent', 'the row recorded as sent');
      expect(await rows(h)).toEqual([{ state: 'sent', sealed: null, attempts: 2, to: 'member@acme.test' }]);
      expect(sink.messages[0]!.rcpt).toEqual(['member@acme.test']);
      // A permanent refusal ends the row at once, its link blanked.
      sink.rejectNext(1, 550, 'No such mailbox');
      await new DashClient(h).submit('/sign-in/link', { email: 'owner@acme.test' });
      await eventually(async () => (await rows(h!))[1]?.state === 'failed', 'the refused row given up');
      expect((await rows(h))[1]).toEqual({ state: 'failed', sealed: null, attempts: 1, to: 'owner@acme.test' });
    } finally {
      await worker.stop();
    }
  });
});
