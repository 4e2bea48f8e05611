import { afterEach, describe, expect, it } from 'vitest';
import { DashClient, type DashHarness } from './helpers.js';
import { invitationRows, invitationSetup, pressEverything, secretOf, shownLink, signedIn } from './invitation-helpers.js';

/**
 * Invitations through real HTTP (issue 22, item 1): an invitation never signs anyone in to an account
 * that exists. The address's account is decided at acceptance: none, and the link creates it; one,
 * and that user accepts or declines on their profile after signing in as themselves.
 */
let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const sessionsOf = async (userId: string) => (await h!.query<{ n: number }>('SELECT count(*) AS n FROM sessions WHERE user_id = ?', [userId]))[0]!.n;
const userCount = async () => (await h!.query<{ n: number }>('SELECT count(*) AS n FROM users'))[0]!.n;
const roleIn = async (workspaceId: string, userId: string) =>
  (await h!.query<{ role: string }>('SELECT role FROM memberships WHERE workspace_id = ? AND user_id = ?', [workspaceId, userId]))[0]?.role;

describe('the takeover attempt (mail off)', () => {
  it('an admin of another workspace who invites a user’s address never gets into that account, nor its private channels', async () => {
    const s = await invitationSetup();
    h = s.h;
    const { seed } = s;
    // Sam owns workspace "Other"; Olive (owner of Acme) is the victim, a member of the private #security.
    const attacker = await signedIn(h, seed.stranger.id);
    const invited = await attacker.submit('/members/invite', { email: 'OWNER@acme.test', role: 'member' });
    expect(invited.res.status).toBe(200);
    const link = shownLink(invited.html);

    // The attacker, signed in or not, presses every button the link offers.
    await pressEverything(attacker, link);
    const anonymous = new DashClient(h);
    await pressEverything(anonymous, link);

    expect(await sessionsOf(seed.owner.id)).toBe(1); // only the session the setup gave Olive herself
    expect((await anonymous.get('/channels')).res.status).toBe(303);
    const profile = await attacker.get('/profile');
    expect(profile.html).toContain('stranger@other.test');
    expect(profile.html).not.toContain('owner@acme.test');
    expect((await attacker.get(`/channels/${seed.secret.id}`)).res.status).toBe(404);
    expect(profile.html).not.toContain('>Acme<');
    expect(await roleIn(seed.ws.id, seed.stranger.id)).toBeUndefined();
    // What was shown is an invitation link, never a sign-in link.
    expect(link).toMatch(/^\/invite\?t=/);
    expect(invited.html).toContain('Invitation link');
    expect(invited.html).not.toContain('Sign-in link');
    // The invitation waits for Olive, untouched.
    expect((await invitationRows(h)).map((r) => r.state)).toEqual(['pending']);
    const olive = await signedIn(h, seed.owner.id);
    const page = await olive.get('/channels');
    expect(page.html).toContain('You have a pending invitation to join a workspace.');
    expect((await olive.get('/profile')).html).toContain('Accept the invitation to Other');
  });

  it('opened without a session, the link of an existing account leads to the sign-in page with the reason', async () => {
    const s = await invitationSetup();
    h = s.h;
    const link = shownLink((await s.owner.submit('/members/invite', { email: 'stranger@other.test', role: 'admin' })).html);
    const anonymous = new DashClient(h);
    const opened = await anonymous.get(link);
    expect(opened.res.status).toBe(303);
    const to = opened.res.headers.get('location')!;
    expect(to).toMatch(/^\/sign-in\?/);
    const signIn = await anonymous.get(to);
    expect(signIn.html).toContain('Sign in as that account to accept it');
    // Posting the acceptance form by hand makes no account and no session either.
    const forced = await anonymous.post('/invite/accept', { t: secretOf(link), name: 'Sam' }, { csrf: null });
    expect([forced.res.status, forced.res.headers.get('location')]).toEqual([303, to]);
    expect(await sessionsOf(s.seed.stranger.id)).toBe(0);
    expect(anonymous.cookies.size).toBe(0);
    // Sam signs in as himself from that page and lands where the invitation waits.
    await h.services.accountAuth.passwords.set(s.seed.stranger.id, 'correct horse battery');
    const next = /<input type="hidden" name="next" value="([^"]+)"/.exec(signIn.html)![1]!;
    const signedInRes = await anonymous.post('/sign-in', { email: 'stranger@other.test', password: 'correct horse battery', next }, { csrf: null });
    expect([signedInRes.res.status, signedInRes.res.headers.get('location')]).toEqual([303, '/profile']);
    expect((await anonymous.get('/profile')).html).toContain('Accept the invitation to Acme');
  });
});

describe('an address with no account', () => {
  it('accepting creates the account (name, optional password) and the membership, signs in, and works once', async () => {
    const s = await invitationSetup();
    h = s.h;
    const link = shownLink((await s.owner.submit('/members/invite', { email: 'nina@acme.test', role: 'admin' })).html);
    expect(await userCount()).toBe(3); // nothing made at sending
    const nina = new DashClient(h);
    const page = await nina.get(link);
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('Join Acme');
    expect(page.html).toContain('nina@acme.test');
    const t = secretOf(link);
    const bad = await nina.post('/invite/accept', { t, name: ' ', password: 'short', repeat_password: 'short' }, { csrf: null });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('Enter your name');
    expect(bad.html).toContain('or leave both empty');
    expect(await userCount()).toBe(3);

    const ok = await nina.submit('/invite/accept', { t, name: 'Nina Newbie', password: 'correct horse battery', repeat_password: 'correct horse battery' }, { csrf: null });
    // The first sign-in lands on the feed, welcomed.
    expect([ok.posted.status, ok.location?.split('?')[0]]).toEqual([303, '/feed']);
    expect(ok.html).toContain('Welcome to Acme! You joined as admin.');
    expect((await nina.get('/profile')).html).toContain('Nina Newbie');
    const user = (await h.query<{ id: string }>("SELECT id FROM users WHERE email = 'nina@acme.test'"))[0]!;
    expect(await roleIn(s.seed.ws.id, user.id)).toBe('admin');
    expect((await invitationRows(h)).map((r) => r.state)).toEqual(['accepted']);
    // Single use: the link is dead, for anyone.
    expect((await new DashClient(h).get(link)).res.status).toBe(410);
    expect((await new DashClient(h).post('/invite/accept', { t, name: 'Again' }, { csrf: null })).res.status).toBe(410);
    expect(await userCount()).toBe(4);
    // The password she chose works.
    const again = await new DashClient(h).post('/sign-in', { email: 'nina@acme.test', password: 'correct horse battery', next: '/' });
    expect(again.res.status).toBe(303);
    const audit = await s.owner.get('/audit');
    expect(audit.html).toContain('member.invited');
    expect(audit.html).toContain('member.invitation-accepted');
  });

  it('an unknown or garbled link is a 410 page, never a 500', async () => {
    const s = await invitationSetup();
    h = s.h;
    for (const path of ['/invite', '/invite?t=', '/invite?t=%00', `/invite?t=${'A'.repeat(43)}`, '/invite?t=__proto__']) {
      const res = await new DashClient(h).get(path);
      expect(res.res.status, path).toBe(410);
      expect(res.html).toContain('This invitation no longer works');
    }
  });
});

describe('an address with an account: pending invitations', () => {
  it('the user accepts after signing in as themselves; nobody else can', async () => {
    const s = await invitationSetup();
    h = s.h;
    const { seed } = s;
    await s.owner.submit('/members/invite', { email: 'stranger@other.test', role: 'admin' });
    const id = (await h.query<{ id: string }>('SELECT id FROM invitations'))[0]!.id;
    // Another member of Acme, and the inviter, cannot accept it for Sam.
    const max = await signedIn(h, seed.member.id);
    expect((await max.post(`/invitations/${id}/accept`)).res.status).toBe(404);
    expect((await s.owner.post(`/invitations/${id}/accept`)).res.status).toBe(404);
    expect((await max.get('/profile')).html).not.toContain('Pending invitations');

    const sam = await signedIn(h, seed.stranger.id);
    const frame = await sam.get('/channels');
    expect(frame.html).toContain('Review pending invitations');
    const profile = await sam.get('/profile');
    expect(profile.html).toContain('<strong>Acme</strong> as admin, from Olive Owner');
    // A POST without the CSRF token changes nothing.
    expect((await sam.post(`/invitations/${id}/accept`, {}, { csrf: null })).res.status).toBe(403);
    const accepted = await sam.submit(`/invitations/${id}/accept`);
    expect([accepted.posted.status, accepted.location?.split('?')[0]]).toEqual([303, '/feed']);
    expect(accepted.html).toContain('you are now an admin of Acme');
    const after = await sam.get('/profile');
    expect(after.html).not.toContain('Accept the invitation');
    expect(await roleIn(seed.ws.id, seed.stranger.id)).toBe('admin');
    expect((await sam.post(`/invitations/${id}/accept`)).res.status).toBe(404);
    expect((await sam.get('/channels')).html).not.toContain('Review pending invitations');
    expect((await s.owner.get('/audit')).html).toContain('member.invitation-accepted');
  });

  it('declining leaves no membership, ends the invitation and is audited', async () => {
    const s = await invitationSetup();
    h = s.h;
    const dave = await h.services.accounts.createUser('Dave@Else.test', 'Dave');
    await s.owner.submit('/members/invite', { email: 'dave@else.test', role: 'member' });
    const id = (await h.query<{ id: string }>('SELECT id FROM invitations'))[0]!.id;
    const client = await signedIn(h, dave.id);
    const declined = await client.submit(`/invitations/${id}/decline`);
    expect([declined.posted.status, declined.location?.replace(/\?flash=.*$/, '')]).toEqual([303, '/profile']);
    expect(declined.html).toContain('Invitation declined.');
    expect(await roleIn(s.seed.ws.id, dave.id)).toBeUndefined();
    expect((await invitationRows(h)).map((r) => r.state)).toEqual(['declined']);
    expect((await client.post(`/invitations/${id}/accept`)).res.status).toBe(404);
    expect((await s.owner.get('/audit')).html).toContain('member.invitation-declined');
    // Declined is not pending: the owner may invite again, which makes a new invitation.
    await s.owner.submit('/members/invite', { email: 'dave@else.test', role: 'member' });
    expect((await invitationRows(h)).map((r) => r.state)).toEqual(['declined', 'pending']);
  });
});
