import { afterEach, describe, expect, it } from 'vitest';
import { postAlert, seedWorkspace } from '../helpers/harness.js';
import { DashClient, startDashboard, type DashHarness } from './helpers.js';

// The dashboard's Silences page on the server side (dashboardEngine()): Post/Redirect/Get, errors
// beside their field with nothing stored, owners and admins only for changes, and the form
// prefilled from an alert.

let h: DashHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function setup() {
  h = await startDashboard();
  const seed = await seedWorkspace(h.services);
  const owner = new DashClient(h);
  await owner.signInWithLink(seed.owner.id);
  const member = new DashClient(h);
  await member.signInWithLink(seed.member.id);
  return { h, seed, owner, member };
}

const count = async (d: DashHarness) => Number((await d.query<{ n: number }>('SELECT count(*) AS n FROM silences'))[0]!.n);

describe('silences in the dashboard', () => {
  it('an owner creates one (PRG), sees it listed, and expires it early', async () => {
    const { h, seed, owner } = await setup();
    await owner.get('/silences');
    const created = await owner.post('/silences', {
      channel: seed.general.id, level: 'ERROR', source: '', titleContains: 'replica', fields: 'region=eu-1\n\ntier=db',
      for: '2h', until: '', weekly: '', timeZone: 'UTC', comment: 'DB failover drill',
    });
    expect(created.res.status).toBe(303);
    expect(created.res.headers.get('location')).toMatch(/^\/silences\?flash=[A-Za-z0-9_-]{22}$/);
    const list = await owner.get(created.res.headers.get('location')!);
    expect(list.html).toContain('Silence created.');
    // A flash: a reload (or the URL shared) does not say it again.
    expect((await owner.get(created.res.headers.get('location')!)).html).not.toContain('Silence created.');
    expect(list.html).toContain('DB failover drill');
    expect(list.html).toContain('#general, level ERROR, title contains “replica”, region=eu-1, tier=db');
    const [stored] = await h.query<{ id: string; fieldsJson: string; createdBy: string }>('SELECT id, fields_json AS "fieldsJson", created_by AS "createdBy" FROM silences');
    expect(JSON.parse(stored!.fieldsJson)).toEqual([{ label: 'region', value: 'eu-1' }, { label: 'tier', value: 'db' }]);
    expect(stored!.createdBy).toBe(seed.owner.id);

    const after = await owner.submit(`/silences/${stored!.id}/expire`);
    expect(after.posted.status).toBe(303);
    expect(after.location).toMatch(/^\/silences\?flash=/);
    expect(after.html).toContain('Silence expired.');
    expect(after.html).toMatch(/<h2 id="past-title">Expired<\/h2>[\s\S]*DB failover drill/);
    expect((await h.query<{ at: number | null }>('SELECT expired_at AS at FROM silences'))[0]!.at).not.toBeNull();
  });

  it('a refused form is shown again with the error beside its field and stores nothing', async () => {
    const { h, owner } = await setup();
    await owner.get('/silences');
    const cases: [Record<string, string>, string, string][] = [
      [{ weekly: 'Sat 02:00-04:00', timeZone: 'Mars/Olympus', comment: 'x' }, 'f-timeZone-error', 'time zone'],
      [{ weekly: 'Caturday 02:00', timeZone: 'UTC', comment: 'x' }, 'f-weekly-error', 'weekly window'],
      [{ for: '2 hours', comment: 'x' }, 'f-for-error', 'duration'],
      [{ for: '1h', comment: '' }, 'f-comment-error', 'comment is required'],
      [{ comment: 'x' }, 'f-for-error', 'exactly one'],
      [{ for: '1h', fields: '=x', comment: 'x' }, 'f-fields-error', 'label=value'],
      [{ for: '1h', channel: 'ch_nope', comment: 'x' }, '', 'Choose a channel'],
    ];
    for (const [form, id, text] of cases) {
      const res = await owner.post('/silences', form);
      expect(res.res.status, JSON.stringify(form)).toBe(400);
      if (id) expect(res.html).toMatch(new RegExp(`id="${id}">[^<]*${text}`, 'i'));
      else expect(res.html).toContain(text);
    }
    expect(await count(h)).toBe(0);
  });

  it('members see the list but may not create or expire; another workspace cannot expire ours', async () => {
    const { h, seed, owner, member } = await setup();
    await owner.get('/silences');
    await owner.post('/silences', { for: '1h', comment: 'everything', timeZone: 'UTC' });
    const [stored] = await h.query<{ id: string }>('SELECT id FROM silences');
    const page = await member.get('/silences');
    expect(page.res.status).toBe(200);
    expect(page.html).toContain('everything');
    expect(page.html).not.toContain('Create silence');
    expect((await member.post('/silences', { for: '1h', comment: 'mine' })).res.status).toBe(403);
    expect((await member.post(`/silences/${stored!.id}/expire`)).res.status).toBe(403);
    expect((await member.get('/silences/new')).res.status).toBe(403);

    const stranger = new DashClient(h);
    await stranger.signInWithLink(seed.stranger.id);
    await stranger.get('/silences');
    expect((await stranger.post(`/silences/${stored!.id}/expire`)).res.status).toBe(404);
    expect(await h.query('SELECT expired_at AS at FROM silences')).toEqual([{ at: null }]);
  });

  it('"silence alerts like this" prefills the matchers from an alert the viewer can see', async () => {
    const { h, seed, owner } = await setup();
    const { body } = await postAlert(
      { call: async (m, p, o) => h.app.request(p, { method: m, headers: { 'content-type': 'application/json' }, body: JSON.stringify(o?.json) }) },
      seed.deploys.webhookToken,
      { title: 'Deploy failed on web-3', level: 'error', source: 'ci', fields: [{ label: 'env', value: 'prod' }] },
    );
    const alertId = (body as { alertId: string }).alertId;
    const form = await owner.get(`/silences/new?alert=${alertId}`);
    expect(form.res.status).toBe(200);
    expect(form.html).toContain('Silence alerts like this one');
    expect(form.html).toMatch(new RegExp(`<option value="${seed.deploys.id}" selected="">`));
    expect(form.html).toMatch(/<option value="ERROR" selected="">/);
    expect(form.html).toContain('value="Deploy failed on web-3"');
    expect(form.html).toContain('value="ci"');
    expect(form.html).toMatch(/<textarea id="f-fields"[^>]*>env=prod<\/textarea>/);
    expect((await owner.get('/silences/new?alert=alt_00000000000000000000000000')).res.status).toBe(404);
    // A private channel the owner is not in stays invisible: nothing of it is prefilled.
    await h.services.accounts.removeChannelMember(seed.secret.id, seed.owner.id);
    const { body: secretBody } = await postAlert(
      { call: async (m, p, o) => h.app.request(p, { method: m, headers: { 'content-type': 'application/json' }, body: JSON.stringify(o?.json) }) },
      seed.secret.webhookToken,
      { title: 'Hidden' },
    );
    expect((await owner.get(`/silences/new?alert=${(secretBody as { alertId: string }).alertId}`)).res.status).toBe(404);
  });
});
