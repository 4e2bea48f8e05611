import { afterEach, describe, expect, it } from 'vitest';
import { SmtpMailer } from '../../src/notify/mailer.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { DashClient, type DashHarness } from './helpers.js';
import { invitationRows, invitationSetup, secretOf, shownLink, signedIn } from './invitation-helpers.js';

/**
 * Managing invitations through real HTTP: the pending list, re-issue (the old link dies), withdraw,
 * expiry (INVITATION_TTL_HOURS), the recent sign-in they need, and the e-mail when mail is on.
 */
const MIN = 60_000;
const HOUR = 60 * MIN;
let h: DashHarness | undefined;
let sink: SmtpSink | undefined;
afterEach(async () => {
  await h?.close();
  await sink?.close();
  h = undefined;
  sink = undefined;
});

const idOf = async (email: string) => (await h!.query<{ id: string }>("SELECT id FROM invitations WHERE email = ? AND state = 'pending'", [email]))[0]!.id;

describe('re-issue and withdraw', () => {
  it('lists pending invitations; re-inviting or re-issuing gives a new link and kills the old one, without a second row', async () => {
    const s = await invitationSetup();
    h = s.h;
    const first = shownLink((await s.owner.submit('/members/invite', { email: 'kim@acme.test', role: 'member' })).html);
    const list = await s.owner.get('/members');
    expect(list.html).toContain('Pending invitations');
    expect(list.html).toMatch(/<th scope="row">kim@acme.test<\/th>\s*<td data-label="Role">member<\/td>\s*<td data-label="Invited by">Olive Owner<\/td>/);
    expect(list.html).toContain('(link shown)');
    expect(list.html).toContain('2026-11-30 09:00 UTC'); // 168 hours later

    // The same address in other letters is the same invitation (it keeps its first spelling).
    const again = await s.owner.submit('/members/invite', { email: 'Kim@Acme.test', role: 'admin' });
    expect(again.res.status).toBe(200);
    const second = shownLink(again.html);
    expect((await invitationRows(h)).map((r) => [r.email, r.role, r.state])).toEqual([['kim@acme.test', 'admin', 'pending']]);
    expect((await new DashClient(h).get(first)).res.status).toBe(410);
    expect((await new DashClient(h).get(second)).res.status).toBe(200);

    const reissued = await s.owner.submit(`/members/invitations/${await idOf('kim@acme.test')}/reissue`);
    expect(reissued.res.status).toBe(200);
    const third = shownLink(reissued.html);
    expect(new Set([first, second, third]).size).toBe(3);
    expect((await new DashClient(h).get(second)).res.status).toBe(410);
    expect((await new DashClient(h).post('/invite/accept', { t: secretOf(second), name: 'Kim' }, { csrf: null })).res.status).toBe(410);
    expect((await new DashClient(h).get(third)).html).toContain('Join Acme');
    // Only hashes are stored.
    const stored = JSON.stringify(await h.query('SELECT * FROM invitations'));
    for (const link of [first, second, third]) expect(stored).not.toContain(secretOf(link));
    const audit = (await s.owner.get('/audit')).html;
    expect(audit.match(/member\.invitation-reissued/g)).toHaveLength(2);
  });

  it('withdraws a pending invitation (its link dies); members may not manage invitations', async () => {
    const s = await invitationSetup();
    h = s.h;
    const link = shownLink((await s.owner.submit('/members/invite', { email: 'lee@acme.test', role: 'member' })).html);
    const id = await idOf('lee@acme.test');
    const max = await signedIn(h, s.seed.member.id);
    expect((await max.get('/members')).html).not.toContain('lee@acme.test');
    for (const path of [`/members/invitations/${id}/withdraw`, `/members/invitations/${id}/reissue`]) expect((await max.post(path)).res.status, path).toBe(403);
    // Another workspace's owner cannot touch it either.
    const sam = await signedIn(h, s.seed.stranger.id);
    expect((await sam.post(`/members/invitations/${id}/withdraw`)).res.status).toBe(404);

    const done = await s.owner.submit(`/members/invitations/${id}/withdraw`);
    expect(done.posted.status).toBe(303);
    expect(done.html).toContain('Invitation of lee@acme.test withdrawn. Its link no longer works.');
    expect((await s.owner.get('/members')).html).not.toContain('lee@acme.test');
    expect((await new DashClient(h).get(link)).res.status).toBe(410);
    expect((await invitationRows(h)).map((r) => r.state)).toEqual(['withdrawn']);
    expect((await s.owner.post(`/members/invitations/${id}/withdraw`)).res.status).toBe(404);
    expect((await s.owner.submit(`/members/invitations/${id}/reissue`)).res.status).toBe(404);
    expect((await s.owner.get('/audit')).html).toContain('member.invitation-withdrawn');
  });
});

describe('lifetime', () => {
  it('an invitation expires after INVITATION_TTL_HOURS: its link dies, the invitee no longer sees it, and a re-issue revives it', async () => {
    const s = await invitationSetup({ env: { INVITATION_TTL_HOURS: '2' } });
    h = s.h;
    const link = shownLink((await s.owner.submit('/members/invite', { email: 'stranger@other.test', role: 'member' })).html);
    const sam = await signedIn(h, s.seed.stranger.id);
    expect((await sam.get('/profile')).html).toContain('Accept the invitation to Acme');
    s.clock.advance(2 * HOUR);
    expect((await new DashClient(h).get(link)).res.status).toBe(410);
    expect((await sam.get('/profile')).html).not.toContain('Accept the invitation to Acme');
    expect((await sam.post(`/invitations/${await idOf('stranger@other.test')}/accept`)).res.status).toBe(404);
    expect((await s.owner.get('/members')).html).toContain('<strong>expired</strong>');
    // A fresh sign-in: the owner's first one is older than 30 minutes now.
    const fresh = await signedIn(h, s.seed.owner.id);
    const revived = await fresh.submit(`/members/invitations/${await idOf('stranger@other.test')}/reissue`);
    expect(revived.res.status).toBe(200);
    expect((await sam.get('/profile')).html).toContain('Accept the invitation to Acme');
  });
});

describe('a recent sign-in', () => {
  it('is needed to invite, re-issue and change a role; nothing is stored until the password is confirmed', async () => {
    const s = await invitationSetup();
    h = s.h;
    await s.owner.post('/profile/password', { new_password: 'correct horse battery', repeat_password: 'correct horse battery' });
    const pending = shownLink((await s.owner.submit('/members/invite', { email: 'pat@acme.test', role: 'member' })).html);
    s.clock.advance(31 * MIN);
    const asked = await s.owner.submit('/members/invite', { email: 'quinn@acme.test', role: 'admin' });
    expect(asked.res.status).toBe(403);
    expect(asked.html).toContain('Confirm it is you');
    expect(asked.html).toContain('name="email" value="quinn@acme.test"');
    expect((await invitationRows(h)).map((r) => r.email)).toEqual(['pat@acme.test']);
    expect((await s.owner.submit(`/members/invitations/${await idOf('pat@acme.test')}/reissue`)).res.status).toBe(403);
    expect((await new DashClient(h).get(pending)).res.status).toBe(200);
    const role = await s.owner.post(`/members/${s.seed.member.id}/role`, { role: 'admin' });
    expect(role.res.status).toBe(403);
    expect(role.html).toContain('Confirm it is you');
    const wrong = await s.owner.submit('/members/invite', { email: 'quinn@acme.test', role: 'admin', confirm_password: 'not the password' });
    expect(wrong.html).toContain('That password is not right.');
    const ok = await s.owner.submit('/members/invite', { email: 'quinn@acme.test', role: 'admin', confirm_password: 'correct horse battery' });
    expect(ok.res.status).toBe(200);
    expect((await invitationRows(h)).map((r) => r.email)).toEqual(['pat@acme.test', 'quinn@acme.test']);
  });
});

describe('with mail on', () => {
  async function mailSetup() {
    sink = await SmtpSink.start();
    const s = await invitationSetup({ mailer: new SmtpMailer(`smtp://127.0.0.1:${sink.port}`, 'Alertbridge <ab@test>') });
    h = s.h;
    return s;
  }

  it('e-mails a new address "accept and create your account" and an existing account "sign in and accept"; the page shows no link', async () => {
    const s = await mailSetup();
    const fresh = await s.owner.submit('/members/invite', { email: 'ria@acme.test', role: 'member' });
    expect([fresh.posted.status, fresh.res.status]).toEqual([303, 200]);
    expect(fresh.html).toContain('Invitation e-mailed to ria@acme.test as member.');
    const existing = await s.owner.submit('/members/invite', { email: 'stranger@other.test', role: 'member' });
    expect(existing.posted.status).toBe(303);
    const page = existing;
    expect(page.html).not.toContain('/invite?t=');
    expect(page.html).toContain('(e-mailed)');
    const [toRia] = sink!.to('ria@acme.test');
    expect(toRia!.subject).toBe('Join Acme on Alertbridge');
    expect(toRia!.text).toContain('Olive Owner invited you to join Acme on Alertbridge as member.');
    expect(toRia!.text).toContain('accept and create your account');
    const [toSam] = sink!.to('stranger@other.test');
    expect(toSam!.text).toContain('sign in as that account and accept the invitation');
    expect(toSam!.text).not.toContain('create your account');
    // The e-mailed link does what the page would have: an account for Ria, the sign-in page for Sam.
    const riaLink = /http:\/\/alertbridge\.test(\/invite\?t=[A-Za-z0-9_-]{43})/.exec(toRia!.text)![1]!;
    expect((await new DashClient(h!).get(riaLink)).html).toContain('Accept and create your account');
    const samLink = /http:\/\/alertbridge\.test(\/invite\?t=[A-Za-z0-9_-]{43})/.exec(toSam!.text)![1]!;
    expect((await new DashClient(h!).get(samLink)).res.headers.get('location')).toMatch(/^\/sign-in\?invitation=1/);
  });

  it('when the send fails, shows the inviter the invitation link (never a sign-in link)', async () => {
    const s = await mailSetup();
    sink!.rejectNext(5, 550, 'Mailbox unavailable');
    const res = await s.owner.submit('/members/invite', { email: 'owner@other.test', role: 'member' });
    expect(res.res.status).toBe(200);
    expect(res.html).toContain('could not be sent');
    expect(shownLink(res.html)).toMatch(/^\/invite\?t=/);
    expect(res.html).not.toContain('/auth/link');
    expect((await invitationRows(h!)).map((r) => Boolean(r.sent_by_mail))).toEqual([false]);
  });
});
