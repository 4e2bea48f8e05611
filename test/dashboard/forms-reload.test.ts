import { createECDH, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace } from '../helpers/harness.js';
import { startFakeReceiver } from '../helpers/fake-receiver.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

/**
 * Issue 25: every state-changing form of the dashboard, submitted over real HTTP with the session
 * cookie and CSRF token, answers 303 to a GET page; that page, reloaded, is fetched again with GET
 * (the browser never posts twice) and the effect happened exactly once: one audit entry, or for the
 * forms that are not audited (personal settings, feed actions) one stored change seen another way.
 * The browser-level version of the same for channels, tokens and members: browser-forms.test.ts.
 */
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
beforeAll(async () => {
  // Routes' tests send to a receiver on loopback.
  h = await startDashboard({ env: { ROUTES_ALLOW_PRIVATE: '1' } });
  seed = await seedWorkspace(h.services);
});
afterAll(async () => h?.close());

async function client(userId: string): Promise<DashClient> {
  const c = new DashClient(h, 'http');
  await c.signInWithLink(userId);
  return c;
}

const audited = async (action: string) => (await h.query<{ n: number }>('SELECT count(*) AS n FROM audit_log WHERE action = ?', [action]))[0]!.n;
const count = async (sql: string, params: unknown[] = []) => (await h.query<{ n: number }>(sql, params))[0]!.n;

/**
 * Submits a form as a browser does and reloads the page it landed on. The POST must answer 303 (a
 * 200 page would be posted again by the reload); the notice shows on the first GET only.
 */
async function submitAndReload(c: DashClient, path: string, form: Record<string, string> = {}, notice?: string) {
  const done = await c.submit(path, form);
  expect(done.posted.status, `${path} answers with a redirect`).toBe(303);
  expect(done.location, path).toMatch(/^\/[^/]/);
  expect(done.res.status, `${path} lands on a page`).toBe(200);
  const reload = await c.get(done.location!);
  expect(reload.res.status, `${path} reloaded`).toBe(200);
  if (notice) {
    expect(done.html, path).toContain(notice);
    expect(reload.html, `${path} reloaded shows its notice no more`).not.toContain(notice);
  }
  return { shown: done.html, reloaded: reload.html, location: done.location! };
}

/** A form whose effect is one audit entry: exactly one more after the submit and the reload. */
async function auditedOnce(c: DashClient, action: string, path: string, form: Record<string, string> = {}, notice?: string) {
  const before = await audited(action);
  const out = await submitAndReload(c, path, form, notice);
  expect(await audited(action), action).toBe(before + 1);
  return out;
}

const channelId = async (name: string) => (await h.query<{ id: string }>('SELECT id FROM channels WHERE name = ?', [name]))[0]!.id;

describe('every form, submitted and reloaded, has exactly one effect', () => {
  it('channel settings: create, name, rotate, Discord, signing secret, privacy, members, e-mail level, delete', async () => {
    const owner = await client(seed.owner.id);
    await owner.get('/channels');
    await auditedOnce(owner, 'channel.created', '/channels', { name: 'Ops', icon: '🛠️', slug: '' });
    const id = await channelId('Ops');
    const at = `/channels/${id}`;
    await owner.get(at);
    await auditedOnce(owner, 'channel.changed', `${at}/settings`, { name: 'Ops two', icon: '🛠️' }, 'Channel “Ops two” saved.');
    await auditedOnce(owner, 'channel.webhook-rotated', `${at}/rotate`, { confirm: 'on' }, 'Webhook URL of “Ops two” rotated');
    // Connecting Discord stores the channel id; no bot is needed to link it (the bot reads it later).
    await auditedOnce(owner, 'channel.discord-connected', `${at}/discord`, { discord_channel: '112233445566778899' }, 'now mirrors Discord channel 112233445566778899');
    await auditedOnce(owner, 'channel.discord-disconnected', `${at}/discord/disconnect`, {}, 'disconnected from Discord');
    await auditedOnce(owner, 'channel.signing-secret-set', `${at}/signing-secret`, { signing_secret: 'a-github-secret-of-32-characters' }, 'Signing secret of “Ops two” saved.');
    await auditedOnce(owner, 'channel.signing-secret-cleared', `${at}/signing-secret/clear`, {}, 'Signing secret of “Ops two” removed.');
    await auditedOnce(owner, 'channel.made-private', `${at}/privacy`, { privacy: 'private' }, 'is private: only you see it');
    await auditedOnce(owner, 'channel.member-added', `${at}/members`, { user: seed.member.id, action: 'add' }, 'Max Member added to “Ops two”.');
    await auditedOnce(owner, 'channel.member-removed', `${at}/members`, { user: seed.member.id, action: 'remove' }, 'Max Member removed from “Ops two”.');
    await auditedOnce(owner, 'channel.made-public', `${at}/privacy`, { privacy: 'public' }, 'is public');
    // Not audited (a personal setting): one stored preference, the chosen one.
    await submitAndReload(owner, `${at}/notifications`, { level: 'important' }, 'E-mail for “Ops two”');
    expect(await h.query('SELECT level FROM notification_preferences WHERE user_id = ? AND channel_id = ?', [seed.owner.id, id])).toEqual([{ level: 'important' }]);
    await auditedOnce(owner, 'channel.deleted', `${at}/delete`, { confirm_name: 'Ops two' }, 'Channel “Ops two” deleted');
    expect(await count('SELECT count(*) AS n FROM channels WHERE id = ?', [id])).toBe(0);
  });

  it('tokens and members: create, revoke, invite, re-issue, withdraw, change role, remove', async () => {
    const owner = await client(seed.owner.id);
    await owner.get('/tokens');
    await auditedOnce(owner, 'token.created', '/tokens', { name: 'reload check' });
    const token = (await h.query<{ id: string }>("SELECT id FROM api_tokens WHERE name = 'reload check'"))[0]!.id;
    await auditedOnce(owner, 'token.revoked', `/tokens/${token}/revoke`, {}, 'Token “reload check” revoked.');

    await owner.get('/members');
    await auditedOnce(owner, 'member.invited', '/members/invite', { email: 'lee@acme.test', role: 'member' });
    const invitation = (await h.query<{ id: string }>("SELECT id FROM invitations WHERE email = 'lee@acme.test'"))[0]!.id;
    await auditedOnce(owner, 'member.invitation-reissued', `/members/invitations/${invitation}/reissue`);
    await auditedOnce(owner, 'member.invitation-withdrawn', `/members/invitations/${invitation}/withdraw`, {}, 'Invitation of lee@acme.test withdrawn.');

    const pat = await h.services.accounts.createUser('pat@acme.test', 'Pat Person');
    await h.services.accounts.addMember(seed.ws.id, pat.id, 'member');
    await auditedOnce(owner, 'member.role-changed', `/members/${pat.id}/role`, { role: 'admin' }, 'Pat Person is now an admin (was member).');
    await auditedOnce(owner, 'member.removed', `/members/${pat.id}/remove`, {}, 'Pat Person (pat@acme.test) removed from the workspace.');
  });

  it('invitations: accepted and declined by a signed-in person, accepted by a new one', async () => {
    const owner = await client(seed.owner.id);
    await owner.get('/members');
    const ann = await h.services.accounts.createUser('ann@else.test', 'Ann Else');
    const bob = await h.services.accounts.createUser('bob@else.test', 'Bob Else');
    for (const email of ['ann@else.test', 'bob@else.test']) await owner.submit('/members/invite', { email, role: 'member' });
    const idOf = async (email: string) => (await h.query<{ id: string }>('SELECT id FROM invitations WHERE email = ?', [email]))[0]!.id;

    const annClient = await client(ann.id);
    await annClient.get('/profile');
    await auditedOnce(annClient, 'member.invitation-accepted', `/invitations/${await idOf('ann@else.test')}/accept`, {}, 'Invitation accepted');
    const bobClient = await client(bob.id);
    await bobClient.get('/profile');
    await auditedOnce(bobClient, 'member.invitation-declined', `/invitations/${await idOf('bob@else.test')}/decline`, {}, 'Invitation declined.');

    // Without mail the link is shown to the owner; a person with no account accepts it with a password.
    const invited = await owner.submit('/members/invite', { email: 'new@else.test', role: 'member' });
    const link = /value="(https?:\/\/[^"]*\/invite\?t=[^"]+)"/.exec(invited.html)![1]!.replaceAll('&amp;', '&');
    const stranger = new DashClient(h, 'http');
    await stranger.get(new URL(link).pathname + new URL(link).search);
    const t = new URL(link).searchParams.get('t')!;
    await auditedOnce(stranger, 'member.invitation-accepted', '/invite/accept', { t, name: 'Nia New', password: 'correct horse battery', repeat_password: 'correct horse battery' }, 'Welcome to');
    expect(await count("SELECT count(*) AS n FROM users WHERE email = 'new@else.test'")).toBe(1);
  });

  it('profile: name, password, e-mail, banner, push device — personal, so checked by what is stored', async () => {
    const pia = await h.services.accounts.createUser('pia@acme.test', 'Pia Profile');
    await h.services.accounts.addMember(seed.ws.id, pia.id, 'member');
    const c = await client(pia.id);
    await c.get('/profile');
    await submitAndReload(c, '/profile/name', { name: 'Pia Renamed' }, 'Name saved.');
    expect(await h.query('SELECT name FROM users WHERE id = ?', [pia.id])).toEqual([{ name: 'Pia Renamed' }]);

    await submitAndReload(c, '/profile/password', { new_password: 'correct horse battery', repeat_password: 'correct horse battery' }, 'Password saved.');
    expect(await count('SELECT count(*) AS n FROM user_passwords WHERE user_id = ?', [pia.id])).toBe(1);

    // Mail is off: the address changes at once, unverified.
    await submitAndReload(c, '/profile/email', { email: 'pia@new.test' });
    expect(await h.query('SELECT email FROM users WHERE id = ?', [pia.id])).toEqual([{ email: 'pia@new.test' }]);

    const dismissed = await submitAndReload(c, '/profile/email-banner/dismiss');
    expect(dismissed.location).toBe('/feed');

    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const keys = { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
    await h.services.push.subscriptions.subscribe(pia.id, { endpoint: 'https://fcm.googleapis.com/fcm/send/reload-check', keys }, 'Mozilla/5.0 (Linux; Android 15) Chrome/147.0.0.0 Mobile');
    const device = (await h.query<{ id: string }>('SELECT id FROM push_subscriptions WHERE user_id = ?', [pia.id]))[0]!.id;
    await submitAndReload(c, `/push/devices/${device}/delete`);
    expect(await count('SELECT count(*) AS n FROM push_subscriptions WHERE user_id = ?', [pia.id])).toBe(0);
  });

  it('feed: test alert, mark read, mark all read, density, status change, delete', async () => {
    const owner = await client(seed.owner.id);
    await owner.get('/feed');
    const alertsIn = () => count('SELECT count(*) AS n FROM alerts WHERE channel_id = ?', [seed.general.id]);
    const before = await alertsIn();
    await submitAndReload(owner, '/feed/test-alert', { channel: seed.general.id, back: '/feed' });
    expect(await alertsIn()).toBe(before + 1);
    const alert = (await h.query<{ id: string }>('SELECT id FROM alerts WHERE channel_id = ? ORDER BY seq DESC', [seed.general.id]))[0]!.id;

    const isRead = async () => {
      const res = await fetch(`${h.config.publicUrl}/api/alerts/${alert}`, { headers: { authorization: `Bearer ${seed.ownerToken}` } });
      return ((await res.json()) as { isRead: boolean }).isRead;
    };
    await submitAndReload(owner, `/feed/read/${alert}`, { read: '1', back: '/feed' });
    expect(await isRead()).toBe(true);
    await submitAndReload(owner, `/feed/read/${alert}`, { read: '0', back: '/feed' });
    expect(await isRead()).toBe(false);
    await submitAndReload(owner, '/feed/read-all', { channel: '', back: '/feed' });
    expect(await isRead()).toBe(true);

    await submitAndReload(owner, '/feed/density', { density: 'compact', back: '/feed' });
    expect(await h.query('SELECT feed_density AS d FROM user_settings WHERE user_id = ?', [seed.owner.id])).toEqual([{ d: 'compact' }]);

    await submitAndReload(owner, `/feed/status/${alert}`, { action: 'acknowledge', back: '/feed' });
    expect(await h.query('SELECT action FROM alert_history WHERE alert_id = ?', [alert])).toEqual([{ action: 'acknowledged' }]);

    await auditedOnce(owner, 'alert.deleted', `/feed/delete/${alert}`, { back: '/feed' }, 'Alert deleted.');
    expect(await count('SELECT count(*) AS n FROM alerts WHERE id = ?', [alert])).toBe(0);
  });

  it('routes: add, filters, target, test, pause, resume, delete', async () => {
    const receiver = await startFakeReceiver();
    try {
      const owner = await client(seed.owner.id);
      const at = `/channels/${seed.general.id}/routes`;
      await owner.get(`${at}/new?kind=webhook`);
      await auditedOnce(owner, 'route.created', at, { kind: 'webhook', url: `${receiver.url}/hook`, minLevel: 'INFO', event_opened: 'on' }, 'Send a test alert to check it.');
      const route = (await h.query<{ id: string }>('SELECT id FROM routes WHERE channel_id = ?', [seed.general.id]))[0]!.id;
      await auditedOnce(owner, 'route.changed', `${at}/${route}/filters`, { minLevel: 'ERROR', event_opened: 'on', event_resolved: 'on' }, 'Filters of Signed webhook');
      await auditedOnce(owner, 'route.changed', `${at}/${route}/target`, { url: `${receiver.url}/hook-2` }, 'Target replaced');
      // A test is one request to the receiver, however often its answer's page is reloaded.
      await auditedOnce(owner, 'route.tested', `${at}/${route}/test`, {}, 'Delivered');
      expect(receiver.received).toHaveLength(1);
      await auditedOnce(owner, 'route.paused', `${at}/${route}/pause`, {}, 'paused.');
      await auditedOnce(owner, 'route.resumed', `${at}/${route}/resume`, {}, 'resumed');
      await auditedOnce(owner, 'route.deleted', `${at}/${route}/delete`, {}, 'deleted, with its deliveries');
      expect(await count('SELECT count(*) AS n FROM routes WHERE id = ?', [route])).toBe(0);
    } finally {
      await receiver.close();
    }
  });

  it('e-mail buttons, with no session: unsubscribe and acknowledge answer 303; the result shows once and a reload acts on nothing', async () => {
    const person = new DashClient(h, 'http');
    const unsubscribe = new URL(h.services.unsubscribe.url(seed.member.id, seed.general.id));
    await person.get(unsubscribe.pathname + unsubscribe.search);
    await submitAndReload(person, unsubscribe.pathname + unsubscribe.search, {}, 'You will get no more notification e-mails from General.');
    expect(await h.query('SELECT level FROM notification_preferences WHERE user_id = ? AND channel_id = ?', [seed.member.id, seed.general.id])).toEqual([{ level: 'none' }]);

    const owner = await client(seed.owner.id);
    await owner.get('/feed');
    await owner.submit('/feed/test-alert', { channel: seed.general.id, back: '/feed' });
    const alert = (await h.query<{ id: string }>('SELECT id FROM alerts WHERE channel_id = ? ORDER BY seq DESC', [seed.general.id]))[0]!.id;
    const action = new URL(h.services.alertActionLinks.url(seed.member.id, alert, 'acknowledge'));
    await person.get(action.pathname + action.search);
    const done = await submitAndReload(person, action.pathname + action.search, {}, 'Acknowledged “');
    expect(done.location).toMatch(/^\/alert-action\/done\?flash=/);
    expect(await h.query('SELECT action, via FROM alert_history WHERE alert_id = ?', [alert])).toEqual([{ action: 'acknowledged', via: 'email' }]);
  });

  it('sign-in forms, before and after a session: their notices show once, from a browser-bound flash', async () => {
    const visitor = new DashClient(h, 'http');
    await visitor.get('/sign-in');
    await submitAndReload(visitor, '/sign-in/link', { email: 'member@acme.test' }, 'a sign-in link is on its way');
    const owner = await client(seed.owner.id);
    await owner.get('/profile');
    const again = await submitAndReload(owner, '/sign-in/again', {}, 'Your session has ended. Sign in again.');
    expect(again.location).toMatch(/^\/sign-in\?flash=/);
  });

  it('escalation, quiet hours and heartbeats: set, clear, create, pause, resume, delete', async () => {
    const owner = await client(seed.owner.id);
    const at = `/channels/${seed.general.id}`;
    await owner.get(at);
    const policy = { escalation_level: 'WARNING', escalation_after: '10m', escalation_every: '5m', escalation_times: '2' };
    await auditedOnce(owner, 'channel.escalation-set', `${at}/escalation`, policy, 'Escalation of “General” saved.');
    await auditedOnce(owner, 'channel.escalation-cleared', `${at}/escalation/clear`, {}, 'Escalation of “General” turned off.');

    // Quiet hours are personal: checked by what is stored.
    await owner.get('/profile');
    const quiet = 'SELECT count(*) AS n FROM quiet_hours WHERE user_id = ?';
    await submitAndReload(owner, '/profile/quiet-hours', { start: '22:00', end: '07:00', timeZone: 'Europe/Berlin', minLevel: 'warning' }, 'Quiet hours saved.');
    expect(await count(quiet, [seed.owner.id])).toBe(1);
    await submitAndReload(owner, '/profile/quiet-hours/clear', {}, 'Quiet hours are off.');
    expect(await count(quiet, [seed.owner.id])).toBe(0);

    await owner.get('/heartbeats');
    await auditedOnce(owner, 'heartbeat.created', '/heartbeats', { channel: seed.general.id, name: 'Nightly backup', period: '1d', grace: '1h' }, 'Check created.');
    const check = (await h.query<{ id: string }>('SELECT id FROM heartbeat_checks WHERE name = ?', ['Nightly backup']))[0]!.id;
    expect(await count('SELECT count(*) AS n FROM heartbeat_checks WHERE channel_id = ?', [seed.general.id])).toBe(1);
    await auditedOnce(owner, 'heartbeat.paused', `/heartbeats/${check}/pause`, {}, 'Check paused');
    await auditedOnce(owner, 'heartbeat.resumed', `/heartbeats/${check}/resume`, {}, 'Check resumed');
    await auditedOnce(owner, 'heartbeat.deleted', `/heartbeats/${check}/delete`, {}, 'Check deleted.');
    expect(await count('SELECT count(*) AS n FROM heartbeat_checks WHERE id = ?', [check])).toBe(0);
  });

  it('silences: create and expire', async () => {
    const owner = await client(seed.owner.id);
    await owner.get('/silences');
    await auditedOnce(owner, 'silence.created', '/silences', { channel: seed.general.id, for: '2h', comment: 'Reload drill' });
    const silence = (await h.query<{ id: string }>("SELECT id FROM silences WHERE comment = 'Reload drill'"))[0]!.id;
    await auditedOnce(owner, 'silence.expired', `/silences/${silence}/expire`, {}, 'Silence expired.');
  });
});
