import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { EMAIL_CONFIRMATION_TTL_MS } from '../../src/domain/auth/sign-in-links.js';
import { ManualClock } from '../../src/lib/clock.js';
import { SmtpMailer } from '../../src/notify/mailer.js';
import { seedWorkspace } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { secretOf, shownLink } from './invitation-helpers.js';
import { cliEnv, DashClient, startDashboard, type DashHarness } from './helpers.js';

/**
 * Issue 22, items 2 and 8: an address typed without proof (no mail to confirm it) is unverified, and
 * an unverified address reaches nobody: no invitation, no sign-in link; it reserves nothing, and its
 * holder's password keeps working. The profile's address change answers alike for a taken and a
 * free address. Address confirmations are their own links: for their own account only, once, 24 h.
 */
let h: DashHarness | undefined;
let sink: SmtpSink | undefined;
afterEach(async () => {
  await h?.close();
  await sink?.close();
  h = undefined;
  sink = undefined;
});

async function setup(mail: boolean) {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 9));
  if (mail) sink = await SmtpSink.start();
  h = await startDashboard({ serve: false, overrides: { clock }, mailer: sink ? new SmtpMailer(sink.url, 'Alertbridge <ab@test>') : null });
  const seed = await seedWorkspace(h.services);
  const signedIn = async (userId: string) => {
    const c = new DashClient(h!);
    await c.signInWithLink(userId);
    await c.get('/profile');
    return c;
  };
  return { h, clock, seed, signedIn };
}

const linkIn = (text: string, path: string) => new URL(new RegExp(`http://alertbridge\\.test${path}\\?t=[A-Za-z0-9_-]{43}`).exec(text)![0]);
/** A page with the typed address (and the per-page CSRF mask) replaced, so two answers can be compared. */
const without = (html: string, ...addresses: string[]) =>
  addresses.reduce((s, a) => s.split(a).join('ADDRESS'), html).replace(/(name="csrf-token" content|name="_csrf" value)="[^"]*"/g, '$1="CSRF"');

describe('an unverified address (item 2)', () => {
  it("never receives another person's invitation, reserves nothing, and its holder's password keeps working", async () => {
    const { h, seed, signedIn } = await setup(false);
    await h.services.accountAuth.passwords.set(seed.stranger.id, 'strangers own password');
    // Sam (another workspace) claims the address of someone Acme is about to invite: no mail, so no proof.
    const sam = await signedIn(seed.stranger.id);
    const changed = await sam.submit('/profile/email', { email: 'newhire@acme.test' });
    expect(changed.location).toMatch(/^\/profile\?flash=/);
    expect(changed.html).toContain('It is not verified');
    expect(await h.services.accounts.findUser(seed.stranger.id)).toMatchObject({ email: 'newhire@acme.test', emailVerified: false });
    // His own password still signs him in under the address he chose.
    const viaPassword = await new DashClient(h).post('/sign-in', { email: 'newhire@acme.test', password: 'strangers own password' });
    expect(viaPassword.res.status).toBe(303);

    const owner = await signedIn(seed.owner.id);
    await owner.get('/members');
    const invited = await owner.submit('/members/invite', { email: 'newhire@acme.test', role: 'admin' });
    expect(invited.res.status).toBe(200);
    // The shown invitation leads to a new account: Sam's unverified address does not make it his.
    const link = shownLink(invited.html);
    const invitee = new DashClient(h);
    expect((await invitee.get(link)).res.status).toBe(200);
    expect((await invitee.post('/invite/accept', { t: secretOf(link), name: 'Nia' }, { csrf: null })).res.status).toBe(303);
    const members = await h.services.accounts.listMembers(seed.ws.id);
    const newcomer = members.find((m) => m.email === 'newhire@acme.test')!;
    expect(newcomer.id).not.toBe(seed.stranger.id);
    expect(members.map((m) => m.id)).not.toContain(seed.stranger.id);
    // A link shown to the inviter proves no mailbox: the invitee's address stays unverified too, and Sam keeps his.
    expect(await h.services.accounts.findUserByVerifiedEmail('NEWHIRE@acme.test')).toBeUndefined();
    expect(await h.services.accounts.findUser(newcomer.id)).toMatchObject({ email: 'newhire@acme.test', emailVerified: false });
    expect(await h.services.accounts.findUser(seed.stranger.id)).toMatchObject({ email: 'newhire@acme.test', emailVerified: false });
    expect((await owner.get('/profile')).html).not.toContain('not verified');
    expect((await sam.get('/profile')).html).toContain('not verified');
  });

  it('gets no sign-in link: the same page as an unknown address, nothing queued, nothing sent', async () => {
    const { h, seed } = await setup(true);
    // Changed while the server had no mail (or by a member before this change): unverified.
    await h.services.accounts.changeEmail(seed.stranger.id, 'sam.new@other.test', { verified: false });
    const c = new DashClient(h);
    const unverified = await c.submit('/sign-in/link', { email: 'sam.new@other.test' });
    const unknown = await c.submit('/sign-in/link', { email: 'nobody@other.test' });
    expect(unverified.res.status).toBe(200);
    expect(without(unverified.html, 'sam.new@other.test')).toBe(without(unknown.html, 'nobody@other.test'));
    expect(await h.query('SELECT id FROM account_emails')).toEqual([]);
    // A verified address does get one (so the silence above is the rule, not a broken mailer).
    await c.submit('/sign-in/link', { email: 'owner@acme.test' });
    await sink!.waitFor(1);
    await h.accountMailer!.whenIdle();
    expect(sink!.messages.map((m) => m.rcpt)).toEqual([['owner@acme.test']]);
  });

  it('an operator sets a verified address with `user set-email`, even over an unverified holder, never over a verified one', async () => {
    const { h, seed } = await setup(false);
    await h.services.accounts.changeEmail(seed.stranger.id, 'wanted@acme.test', { verified: false });
    const set = await runAdmin(['user', 'set-email', '--user', seed.member.id, '--email', 'Wanted@acme.test'], cliEnv(h));
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ id: seed.member.id, email: 'Wanted@acme.test', emailVerified: true });
    expect((await h.services.accounts.findUserByVerifiedEmail('wanted@acme.test'))?.id).toBe(seed.member.id);
    const taken = await runAdmin(['user', 'set-email', '--user', seed.stranger.id, '--email', 'OWNER@acme.test'], cliEnv(h));
    expect(taken.code).toBe(1);
    expect(taken.stderr).toBe(`user set-email: a user with e-mail OWNER@acme.test already exists (${seed.owner.id})\n`);
    const invalid = await runAdmin(['user', 'set-email', '--user', seed.stranger.id, '--email', 'not-an-address'], cliEnv(h));
    expect(invalid.code).toBe(2);
    expect((await runAdmin(['user', 'set-email', '--user', 'usr_nobody', '--email', 'a@b.test'], cliEnv(h))).code).toBe(1);
    // `user create` is the operator's too: verified.
    const created = JSON.parse((await runAdmin(['user', 'create', '--email', 'ops@acme.test'], cliEnv(h))).stdout) as { id: string };
    expect((await h.services.accounts.findUserByVerifiedEmail('ops@acme.test'))?.id).toBe(created.id);
  });
});

describe('changing one’s address (item 8 and the confirmation link)', () => {
  it('answers alike for a taken and a free address, with mail and without', async () => {
    for (const mail of [true, false]) {
      const { h: harness, seed, signedIn } = await setup(mail);
      const max = await signedIn(seed.member.id);
      const taken = await max.submit('/profile/email', { email: 'owner@acme.test' });
      const takenPage = await max.get(taken.res.headers.get('location') ?? '/profile');
      await harness.services.accounts.changeEmail(seed.member.id, 'member@acme.test', { verified: true });
      const free = await max.submit('/profile/email', { email: 'freed@acme.test' });
      const freePage = await max.get(free.res.headers.get('location') ?? '/profile');
      expect(taken.res.status, `mail ${mail}`).toBe(free.res.status);
      expect(taken.res.headers.get('location')).toBe(free.res.headers.get('location'));
      expect(without(taken.html, 'owner@acme.test')).toBe(without(free.html, 'freed@acme.test'));
      expect(takenPage.html).not.toContain('Another account');
      expect(without(takenPage.html, 'owner@acme.test', 'member@acme.test')).toBe(without(freePage.html, 'freed@acme.test', 'member@acme.test'));
      // The owner's account is untouched either way.
      expect((await harness.services.accounts.findUserByVerifiedEmail('owner@acme.test'))?.id).toBe(seed.owner.id);
      await harness.close();
      await sink?.close();
      h = undefined;
      sink = undefined;
    }
  });

  it('a confirmation link works for its own account only, once, within 24 hours, and never signs in', async () => {
    const { h, clock, seed, signedIn } = await setup(true);
    const max = await signedIn(seed.member.id);
    expect((await max.submit('/profile/email', { email: 'max@new.test' })).html).toContain('within 24 hours');
    await sink!.waitFor(1);
    const link = linkIn(sink!.messages[0]!.text, '/profile/email/confirm');
    const t = link.searchParams.get('t')!;
    // Signed out, it asks for a sign-in first and comes back.
    const anonymous = await new DashClient(h).get(link.pathname + link.search);
    expect(anonymous.res.status).toBe(303);
    expect(anonymous.res.headers.get('location')).toBe(`/sign-in?next=${encodeURIComponent(link.pathname + link.search)}`);
    expect((await new DashClient(h).post('/auth/link', { t }, { csrf: null })).res.status).toBe(410);
    // Another account cannot see or use it, and trying does not use it up.
    const owner = await signedIn(seed.owner.id);
    expect((await owner.get(link.pathname + link.search)).res.status).toBe(410);
    expect((await owner.post('/profile/email/confirm', { t })).res.status).toBe(410);
    expect((await h.services.accounts.findUser(seed.owner.id))!.email).toBe('owner@acme.test');
    // Its own account: a page with a button (mail scanners change nothing), then the change, once.
    const page = await max.get(link.pathname + link.search);
    expect(page.html).toContain('This makes <strong>max@new.test</strong> the address of Max Member');
    expect((await h.services.accounts.findUser(seed.member.id))!.email).toBe('member@acme.test');
    expect((await max.post('/profile/email/confirm', { t })).res.headers.get('location')).toMatch(/^\/profile\?flash=/);
    expect(await h.services.accounts.findUser(seed.member.id)).toMatchObject({ email: 'max@new.test', emailVerified: true });
    expect((await max.post('/profile/email/confirm', { t })).res.status).toBe(410);
    // A day later a fresh link has expired.
    await max.submit('/profile/email', { email: 'max@later.test' });
    await sink!.waitFor(2);
    clock.advance(EMAIL_CONFIRMATION_TTL_MS);
    const late = linkIn(sink!.messages[1]!.text, '/profile/email/confirm').searchParams.get('t')!;
    expect((await max.post('/profile/email/confirm', { t: late })).res.status).toBe(410);
    expect((await h.services.accounts.findUser(seed.member.id))!.email).toBe('max@new.test');
  });

  it('an unverified address is confirmed by a link to itself; a proof that lost the race says so to its owner only', async () => {
    const { h, seed, signedIn } = await setup(true);
    await h.services.accounts.changeEmail(seed.member.id, 'max@mine.test', { verified: false });
    const max = await signedIn(seed.member.id);
    expect((await max.submit('/profile/email', { email: 'max@mine.test' })).html).toContain('We sent a confirmation link to max@mine.test');
    await sink!.waitFor(1);
    const own = linkIn(sink!.messages[0]!.text, '/profile/email/confirm').searchParams.get('t')!;
    // Meanwhile the operator gives the address to someone else.
    await h.services.accounts.setVerifiedEmail(seed.stranger.id, 'max@mine.test');
    const lost = await max.post('/profile/email/confirm', { t: own });
    expect(lost.res.status).toBe(409);
    expect(lost.html).toContain('Another account uses max@mine.test now');
    expect(await h.services.accounts.findUser(seed.member.id)).toMatchObject({ email: 'max@mine.test', emailVerified: false });
  });
});
