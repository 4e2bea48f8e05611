import { afterEach, describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { ManualClock } from '../../src/lib/clock.js';
import { seedWorkspace } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { SmtpMailer } from '../../src/notify/mailer.js';
import { cliEnv, DashClient, startDashboard, type DashHarness } from './helpers.js';

const MIN = 60_000;
let h: DashHarness | undefined;
let sink: SmtpSink | undefined;
afterEach(async () => {
  await h?.close();
  await sink?.close();
  h = undefined;
  sink = undefined;
});

async function setup(opts: Parameters<typeof startDashboard>[0] = {}) {
  const clock = new ManualClock(Date.UTC(2026, 10, 23, 9));
  h = await startDashboard({ serve: false, ...opts, overrides: { clock } });
  const seed = await seedWorkspace(h.services);
  const owner = new DashClient(h);
  await owner.signInWithLink(seed.owner.id);
  const member = new DashClient(h);
  await member.signInWithLink(seed.member.id);
  return { h, clock, seed, owner, member };
}

describe('Discord connection', () => {
  it('connects by Discord channel id with the domain rule as a field error, shows the status and the bot invite, and disconnects', async () => {
    const botId = '112233445566778899';
    const token = `${Buffer.from(botId).toString('base64')}.Gx1234.abcdefghijklmnopqrstuvwxyz`;
    const { h, seed, owner } = await setup({ env: { DISCORD_TOKEN: token } });
    const g = seed.general.id;
    let page = await owner.get(`/channels/${g}`);
    expect(page.html).toContain('Not connected.');
    expect(page.html).toContain(`https://discord.com/oauth2/authorize?client_id=${botId}&amp;scope=bot&amp;permissions=66560`);
    const bad = await owner.post(`/channels/${g}/discord`, { discord_channel: 'general' });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('must be a Discord channel id');
    expect((await owner.post(`/channels/${g}/discord`, { discord_channel: '998877665544332211' })).res.status).toBe(303);
    page = await owner.get(`/channels/${g}`);
    expect(page.html).toContain('Mirrors Discord channel');
    expect(page.html).toContain('998877665544332211');
    const taken = await owner.post(`/channels/${seed.deploys.id}/discord`, { discord_channel: '998877665544332211' });
    expect(taken.html).toContain('one Discord channel feeds one channel');
    expect((await owner.post(`/channels/${g}/discord/disconnect`)).res.status).toBe(303);
    expect((await owner.get(`/channels/${g}`)).html).toContain('Not connected.');
    expect(await h.query('SELECT count(*) AS count FROM discord_links')).toEqual([{ count: 0 }]);
  });
});

describe('roles', () => {
  it('refuses every management endpoint to a member with a 403, and changes nothing', async () => {
    const { h, seed, member, owner } = await setup();
    await owner.submit('/members/invite', { email: 'pending@acme.test', role: 'member' });
    const pending = (await h.query<{ id: string }>('SELECT id FROM invitations'))[0]!.id;
    const ownerTokenId = (await h.services.accounts.listTokens(seed.ws.id)).find((t) => t.userId === seed.owner.id)!.id;
    const state = async () =>
      JSON.stringify(await Promise.all([
        h.query('SELECT id, name, webhook_token FROM channels ORDER BY id'),
        h.query('SELECT user_id, role FROM memberships ORDER BY user_id'),
        h.query('SELECT id FROM api_tokens WHERE revoked_at IS NULL ORDER BY id'),
        h.query('SELECT id, token_hash, state FROM invitations ORDER BY id'),
      ]));
    const snapshot = await state();
    const g = seed.general.id;
    const attempts: [string, Record<string, string>][] = [
      ['/channels', { name: 'Sneaky' }],
      [`/channels/${g}/rotate`, { confirm: 'on' }],
      [`/channels/${g}/settings`, { name: 'Renamed', icon: '🙃' }],
      [`/channels/${seed.secret.id}/members`, { user: seed.member.id }],
      [`/channels/${g}/delete`, { confirm_name: 'General' }],
      ['/members/invite', { email: 'friend@acme.test', role: 'member' }],
      [`/members/invitations/${pending}/reissue`, {}],
      [`/members/invitations/${pending}/withdraw`, {}],
      [`/members/${seed.owner.id}/role`, { role: 'member' }],
      [`/members/${seed.owner.id}/remove`, {}],
      [`/tokens/${ownerTokenId}/revoke`, {}],
      [`/channels/${g}/discord`, { discord_channel: '123456789012345678' }],
      [`/channels/${g}/discord/disconnect`, {}],
    ];
    for (const [path, form] of attempts) {
      const res = await member.post(path, form);
      expect(res.res.status, path).toBe(403);
      expect(res.html, path).toContain('Not allowed');
    }
    // The webhook URL itself is theirs to reveal (test/dashboard/webhook-reveal.test.ts); the audit log is not.
    expect((await member.get('/audit')).res.status).toBe(403);
    expect(await state()).toBe(snapshot);
    // The page does not offer them either.
    const page = await member.get(`/channels/${g}`);
    expect(page.html).not.toContain('Rotate webhook URL');
    expect(page.html).not.toContain(seed.general.webhookToken);
  });

  it('hides private channels from non-members like the API does (404), and other workspaces entirely', async () => {
    const { seed, member, owner } = await setup();
    expect((await member.get(`/channels/${seed.secret.id}`)).res.status).toBe(404);
    expect((await owner.get(`/channels/${seed.secret.id}`)).res.status).toBe(200);
    expect((await owner.get(`/channels/${seed.otherChannel.id}`)).res.status).toBe(404);
    expect((await owner.post(`/channels/${seed.otherChannel.id}/delete`, { confirm_name: 'General' })).res.status).toBe(404);
  });

  it('members revoke their own tokens only; owners revoke anyone’s', async () => {
    const { h, seed, member, owner } = await setup();
    const list = () => h!.services.accounts.listTokens(seed.ws.id);
    const mine = (await list()).find((t) => t.userId === seed.member.id)!;
    const page = await member.get('/tokens');
    expect(page.html).toContain('member laptop');
    expect(page.html).not.toContain('owner laptop');
    expect((await member.post(`/tokens/${mine.id}/revoke`)).res.status).toBe(303);
    const ownerTok = (await list()).find((t) => t.userId === seed.owner.id)!;
    expect((await owner.get('/tokens')).html).toContain('owner laptop');
    expect((await owner.post(`/tokens/${ownerTok.id}/revoke`)).res.status).toBe(303);
    expect((await list()).map((t) => t.revokedAt !== null)).toEqual([true, true]);
  });

  it('never demotes or removes the last owner', async () => {
    const { seed, owner } = await setup();
    const demote = await owner.post(`/members/${seed.owner.id}/role`, { role: 'admin' });
    expect(demote.res.status).toBe(403);
    expect(demote.html).toContain('the last owner cannot be demoted');
    expect((await owner.post(`/members/${seed.owner.id}/remove`)).res.status).toBe(403);
    expect((await owner.post(`/members/${seed.member.id}/role`, { role: 'owner' })).res.status).toBe(303);
    expect((await owner.post(`/members/${seed.owner.id}/role`, { role: 'admin' })).res.status).toBe(303);
  });

  it('asks for the password again after 30 minutes before creating a token, then does it', async () => {
    const { h, clock, seed, owner } = await setup();
    clock.advance(31 * MIN);
    const noPw = await owner.submit('/tokens', { name: 'late' });
    expect(noPw.res.status).toBe(403);
    expect(noPw.html).toContain('sign in again with a fresh link');

    const fresh = new DashClient(h);
    await fresh.signInWithLink(seed.owner.id);
    await fresh.post('/profile/password', { new_password: 'correct horse battery', repeat_password: 'correct horse battery' });
    clock.advance(31 * MIN);
    const ask = await fresh.submit('/tokens', { name: 'late' });
    expect(ask.res.status).toBe(403);
    expect(ask.html).toContain('Confirm it is you');
    expect(ask.html).toContain('name="name" value="late"');
    const wrong = await fresh.submit('/tokens', { name: 'late', confirm_password: 'not it at all' });
    expect(wrong.html).toContain('That password is not right.');
    const ok = await fresh.submit('/tokens', { name: 'late', confirm_password: 'correct horse battery' });
    expect(ok.res.status).toBe(200);
    expect(ok.html).toMatch(/value="ab_[0-9a-f]{48}"/);
    // The confirmation counts for the next 30 minutes.
    expect((await fresh.submit('/tokens', { name: 'later' })).res.status).toBe(200);
  });

  it('records management actions in the audit log, shown to owners and printed by admin audit', async () => {
    const { h, seed, owner } = await setup();
    await owner.post('/channels', { name: 'Audited' });
    await owner.submit('/members/invite', { email: 'new@acme.test', role: 'member' });
    const page = await owner.get('/audit');
    expect(page.html).toContain('channel.created');
    expect(page.html).toContain('member.invited');
    const out = await runAdmin(['audit', '--workspace', seed.ws.id], cliEnv(h));
    const entries = (JSON.parse(out.stdout) as { entries: { action: string; actor: { email: string } }[] }).entries;
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(['member.invited', 'channel.created', 'sign-in.new-device']));
    expect(entries.find((e) => e.action === 'channel.created')!.actor.email).toBe('owner@acme.test');
  });

  it('e-mails a sign-in link when SMTP is set, without telling whether the address exists', async () => {
    sink = await SmtpSink.start();
    const clock = new ManualClock(Date.UTC(2026, 10, 23, 9));
    h = await startDashboard({ serve: false, overrides: { clock }, mailer: new SmtpMailer(`smtp://127.0.0.1:${sink.port}`, 'Alertbridge <ab@test>') });
    await seedWorkspace(h.services);
    const c = new DashClient(h);
    const known = await c.submit('/sign-in/link', { email: 'member@acme.test' });
    const unknown = await c.submit('/sign-in/link', { email: 'ghost@acme.test' });
    expect(known.html).toContain('a sign-in link is on its way');
    expect(unknown.html).toContain('a sign-in link is on its way');
    // A flash, not ?link=sent: a reload of the page does not say it again.
    expect(unknown.location).toMatch(/^\/sign-in\?flash=/);
    expect((await c.get(unknown.location!)).html).not.toContain('a sign-in link is on its way');
    await sink.waitFor(1);
    await h.accountMailer!.whenIdle();
    expect(sink.messages).toHaveLength(1);
    const url = /http:\/\/alertbridge\.test\/auth\/link\?t=[A-Za-z0-9_-]{43}/.exec(sink.messages[0]!.text)![0];
    const t = new URL(url).searchParams.get('t')!;
    expect((await c.post('/auth/link', { t })).res.status).toBe(303);
    expect((await c.get('/channels')).html).toContain('General');
  });
});
