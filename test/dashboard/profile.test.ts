import { afterEach, describe, expect, it } from 'vitest';
import { bootstrapBanner, bootstrapIfEmpty, BOOTSTRAP_PLACEHOLDER_EMAIL } from '../../src/bootstrap.js';
import { SmtpMailer } from '../../src/notify/mailer.js';
import { seedWorkspace } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

let h: DashHarness | undefined;
let sink: SmtpSink | undefined;
afterEach(async () => {
  await h?.close();
  await sink?.close();
  h = undefined;
  sink = undefined;
});

const linkSecret = (url: string) => new URL(url).searchParams.get('t')!;

describe('first run', () => {
  it('prints a one-time sign-in link for the owner; without BOOTSTRAP_OWNER_EMAIL the first sign-in asks for the real address', async () => {
    h = await startDashboard({ serve: false });
    const boot = (await bootstrapIfEmpty(h.services))!;
    const banner = bootstrapBanner(boot, h.config.publicUrl);
    const url = /Dashboard\s+(\S+)/.exec(banner)![1]!;
    expect(url).toMatch(/\/auth\/link\?t=[A-Za-z0-9_-]{43}$/);
    expect(boot.user.email).toBe(BOOTSTRAP_PLACEHOLDER_EMAIL);
    expect(await h.services.accounts.findUserByVerifiedEmail(BOOTSTRAP_PLACEHOLDER_EMAIL)).toBeUndefined();
    const c = new DashClient(h);
    const signIn = await c.post('/auth/link', { t: linkSecret(url) });
    // The first sign-in lands on the feed: the placeholder address is a banner there, not a gate.
    expect(signIn.res.headers.get('location')).toBe('/');
    const feed = await c.get('/feed');
    expect(feed.html).toContain('Add your e-mail address</a> to get notifications');
    // Dismissed, it stays away on this browser.
    const dismissed = await c.submit('/profile/email-banner/dismiss');
    expect(dismissed.location).toBe('/feed');
    expect(dismissed.html).not.toContain('Add your e-mail address');
    // Without mail there is no mailbox to prove: the change is immediate, and the address unverified.
    const changed = await c.submit('/profile/email', { email: 'boss@example.com' });
    expect(changed.location).toMatch(/^\/profile\?flash=[A-Za-z0-9_-]{22}$/);
    expect(await h.services.accounts.findUser(boot.user.id)).toMatchObject({ email: 'boss@example.com', emailVerified: false });
    expect(changed.html).toContain('It is not verified');
    // A flash, not ?email=…: shown once, and a crafted URL cannot make the page claim it.
    expect((await c.get(changed.location!)).html).not.toContain('It is not verified (this server');
    expect((await c.get('/profile?email=unverified')).html).not.toContain('It is not verified (this server');
  });

  it('uses BOOTSTRAP_OWNER_EMAIL for the owner', async () => {
    h = await startDashboard({ serve: false, env: { BOOTSTRAP_OWNER_EMAIL: 'ops@example.com' } });
    const boot = (await bootstrapIfEmpty(h.services))!;
    expect(boot.user.email).toBe('ops@example.com');
    expect((await h.services.accounts.findUserByVerifiedEmail('ops@example.com'))?.id).toBe(boot.user.id);
    const res = await new DashClient(h).post('/auth/link', { t: linkSecret(boot.signIn.url) });
    expect(res.res.headers.get('location')).toBe('/');
  });
});

describe('profile', () => {
  it('changes the e-mail address only through a link sent to the new address', async () => {
    sink = await SmtpSink.start();
    h = await startDashboard({ serve: false, mailer: new SmtpMailer(`smtp://127.0.0.1:${sink.port}`, 'Alertbridge <ab@test>') });
    const seed = await seedWorkspace(h.services);
    const c = new DashClient(h);
    await c.signInWithLink(seed.member.id);
    await c.get('/profile');
    const asked = await c.submit('/profile/email', { email: 'max@new.example' });
    expect(asked.html).toContain('We sent a confirmation link to max@new.example');
    expect((await h.services.accounts.findUser(seed.member.id))!.email).toBe('member@acme.test');
    await sink.waitFor(1);
    expect(sink.messages[0]!.rcpt).toEqual(['max@new.example']);
    expect(sink.messages[0]!.subject).toBe('Confirm your Alertbridge e-mail address');
    const url = /http:\/\/alertbridge\.test\/profile\/email\/confirm\?t=\S+/.exec(sink.messages[0]!.text)![0];
    const confirm = await c.get(new URL(url).pathname + new URL(url).search);
    expect(confirm.html).toContain('This makes <strong>max@new.example</strong> the address of');
    // It signs nobody in: the sign-in button refuses it.
    expect((await new DashClient(h).post('/auth/link', { t: linkSecret(url) })).res.status).toBe(410);
    const confirmed = await c.submit('/profile/email/confirm', { t: linkSecret(url) });
    expect(confirmed.location).toMatch(/^\/profile\?flash=[A-Za-z0-9_-]{22}$/);
    expect(confirmed.html).toContain('E-mail address confirmed: max@new.example.');
    expect((await c.get(confirmed.location!)).html).not.toContain('E-mail address confirmed');
    expect((await c.get('/profile?email=confirmed')).html).not.toContain('E-mail address confirmed');
    expect(await h.services.accounts.findUser(seed.member.id)).toMatchObject({ email: 'max@new.example', emailVerified: true });
  });

  it('switches between the workspaces a user belongs to, and never into another one', async () => {
    h = await startDashboard({ serve: false });
    const seed = await seedWorkspace(h.services);
    await h.services.accounts.addMember(seed.other.id, seed.owner.id, 'member');
    const c = new DashClient(h);
    await c.signInWithLink(seed.owner.id);
    let page = await c.get('/channels');
    expect(page.html).toContain('Security');
    expect(page.html).toContain('<option value="' + seed.other.id + '">Other</option>');
    expect((await c.post('/workspace', { workspace: seed.other.id })).res.status).toBe(303);
    page = await c.get('/channels');
    expect(page.html).not.toContain('Security');
    expect(page.html).not.toContain('Create a channel'); // a member there
    const third = await h.services.accounts.createWorkspace('Third');
    await c.post('/workspace', { workspace: third.id });
    page = await c.get('/channels');
    expect(page.html).toContain(`<option value="${seed.other.id}" selected="">Other</option>`);
  });
});

describe('start-up', () => {
  it('warns when PUBLIC_URL is localhost but the service listens on every interface', async () => {
    const { dashboardStartupWarnings } = await import('../../src/dashboard/startup-warnings.js');
    expect(dashboardStartupWarnings({ publicUrl: 'http://localhost:3000', host: '0.0.0.0' })[0]).toMatch(/Origin check/);
    expect(dashboardStartupWarnings({ publicUrl: 'http://127.0.0.1:3000', host: '::' })).toHaveLength(1);
    expect(dashboardStartupWarnings({ publicUrl: 'http://localhost:3000', host: '127.0.0.1' })).toEqual([]);
    expect(dashboardStartupWarnings({ publicUrl: 'https://alerts.example.com', host: '0.0.0.0' })).toEqual([]);
  });
});
