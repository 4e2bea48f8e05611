import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, newPage, screenshots } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness } from './helpers.js';

/**
 * Post/Redirect/Get in a real Chromium: each form is submitted as a person does, the page it lands on
 * is reloaded, and the audit log holds exactly one effect (a reload of a POST's own answer would post
 * it again: rotate twice, two tokens). One-time results are not shown again after the reload.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
browserSuite((s) => ({ browser, h, seed } = s));

async function signIn(page: Page, userId: string, path: string) {
  await page.goto(await h.link(userId));
  await page.getByRole('button', { name: /^Sign in as / }).click();
  await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
  await page.goto(`${h.config.publicUrl}${path}`);
}

const audited = async (action: string) => (await h.query<{ n: number }>('SELECT count(*) AS n FROM audit_log WHERE action = ?', [action]))[0]!.n;

/** Reloads the page the form landed on and checks the browser posted nothing and the effect happened once. */
async function reloadOnce(page: Page, action: string) {
  const posts: string[] = [];
  const seen = (r: { method(): string; url(): string }) => void (r.method() === 'POST' && posts.push(r.url()));
  page.on('request', seen);
  await page.reload();
  await page.waitForLoadState('load');
  page.off('request', seen);
  expect(posts, action).toEqual([]);
  expect(await audited(action), action).toBe(1);
}

/** Presses a destructive form's button and answers its confirmation dialog, which names the object. */
async function confirm(page: Page, button: { name: string }, question: string, action: string) {
  await page.getByRole('button', button).click();
  const dialog = page.getByRole('dialog', { name: question });
  await dialog.waitFor();
  await dialog.getByRole('button', { name: action }).click();
}

describe('every form is Post/Redirect/Get', () => {
  it('a 403 page links back to where the user came from', async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.member.id, `/channels/${seed.general.id}`);
    // A member posting what only owners may: refused, with a link back to the page the request came from.
    const html = await page.evaluate(async (id) => {
      const csrf = document.querySelector('meta[name="csrf-token"]')!.getAttribute('content')!;
      const body = new URLSearchParams({ _csrf: csrf, confirm: 'on' });
      const res = await fetch(`/channels/${id}/rotate`, { method: 'POST', headers: { accept: 'text/html' }, body });
      return `${res.status} ${await res.text()}`;
    }, seed.general.id);
    expect(html.slice(0, 3)).toBe('403');
    expect(html).toContain(`<a href="/channels/${seed.general.id}">Back to where you were</a>`);
    await context.close();
  });

  it('channels: a taken slug offers a free one; create, rotate, rename and privacy each happen once', { timeout: 120_000 }, async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id, '/channels');
    // A duplicate name is a form error with a suggestion, never an internal id; what was typed stays.
    await page.getByLabel('Name', { exact: true }).fill('Deploys');
    await page.getByLabel('Icon (emoji)').fill('🚀');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.getByText('Another channel uses “deploys”. Try “deploys-2”').waitFor();
    expect((await page.locator('.error').allTextContents()).join(' ')).not.toMatch(/ch_|ws_/);
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe('Deploys');
    expect(await page.getByLabel('Icon (emoji)').inputValue()).toBe('🚀');
    expect(await page.getByLabel('Slug').inputValue()).toBe('deploys-2');
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'channel-slug-taken');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.getByText('Channel “Deploys” created.').waitFor();
    await reloadOnce(page, 'channel.created');

    await page.getByLabel('I understand the current URL stops working at once').check();
    await page.getByRole('button', { name: 'Rotate webhook URL' }).click();
    await page.getByText('Webhook URL of “Deploys” rotated').waitFor();
    const url = await page.getByLabel('Webhook URL').inputValue();
    await reloadOnce(page, 'channel.webhook-rotated');
    // The reload shows the settings, the URL masked again, and the URL still works.
    expect(await page.getByLabel('Webhook URL').count()).toBe(0);
    expect((await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"still works"}' })).status).toBe(201);

    await page.getByLabel('Channel name').fill('Deploys two');
    await page.getByRole('button', { name: 'Save name and icon' }).click();
    await page.getByText('Channel “Deploys two” saved.').waitFor();
    await reloadOnce(page, 'channel.changed');

    // Public → private asks who keeps access.
    await page.getByRole('region', { name: 'Privacy' }).getByLabel(/Max Member/).uncheck();
    await page.getByRole('button', { name: 'Make private' }).click();
    await page.getByText('“Deploys two” is private: only you see it.').waitFor();
    await reloadOnce(page, 'channel.made-private');
    await page.getByRole('region', { name: 'Who can see this private channel' }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    expect(cspViolations(page)).toEqual([]);
    await screenshots(page, 'channel-settings-private');
    // The feed of the channel links back to its settings.
    await page.goto(`${h.config.publicUrl}/feed/c/deploys-2`);
    await page.getByRole('link', { name: 'Settings of Deploys two' }).click();
    await page.getByRole('heading', { name: /Deploys two/, level: 1 }).waitFor();
    await context.close();
  });

  it('tokens: created once and shown once; revoking asks, naming the token', { timeout: 90_000 }, async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id, '/tokens');
    await page.getByLabel('Token name').fill('CI deploy script');
    await page.getByRole('button', { name: 'Create token' }).click();
    const token = await page.getByLabel('Token', { exact: true }).inputValue();
    await reloadOnce(page, 'token.created');
    expect(await page.content()).not.toContain(token);
    await page.getByText('A new token is shown only once').waitFor();

    // The same name again: a form error with a suggestion, the typed name kept.
    await page.getByLabel('Token name').fill('CI deploy script');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByText('You already have a token named “CI deploy script”. Try “CI deploy script 2”').waitFor();
    expect(await page.getByLabel('Token name').inputValue()).toBe('CI deploy script');

    await page.goto(`${h.config.publicUrl}/tokens`);
    await page.getByRole('button', { name: 'Revoke token CI deploy script' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke token “CI deploy script”?' });
    await dialog.waitFor();
    await screenshots(page, 'confirm-revoke-token', { fullPage: false });
    // Cancel changes nothing.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    expect(await audited('token.revoked')).toBe(0);
    await confirm(page, { name: 'Revoke token CI deploy script' }, 'Revoke token “CI deploy script”?', 'Revoke token');
    await page.getByText('Token “CI deploy script” revoked.').waitFor();
    await reloadOnce(page, 'token.revoked');
    await context.close();
  });

  it('members: invitations pending with who and when, re-issued and withdrawn once; the last owner cannot be removed', { timeout: 90_000 }, async () => {
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id, '/members');
    // The last owner's Remove and Change role are disabled, with the reason.
    await page.getByText('The last owner: make someone else owner first.').waitFor();
    expect(await page.getByRole('button', { name: 'Remove Olive Owner from the workspace' }).isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Change role of Olive Owner' }).isDisabled()).toBe(true);

    await page.getByLabel('E-mail').fill('kim@acme.test');
    await page.getByRole('button', { name: 'Invite and show a link' }).click();
    const first = await page.getByLabel('Invitation link').inputValue();
    await reloadOnce(page, 'member.invited');
    expect(await page.getByLabel('Invitation link').count()).toBe(0);
    const row = page.getByRole('row', { name: /kim@acme\.test/ });
    await row.getByText('Olive Owner').waitFor();
    await row.getByText(/UTC/).first().waitFor();

    await confirm(page, { name: 'Re-issue the invitation of kim@acme.test' }, 'Re-issue the invitation of kim@acme.test?', 'Re-issue');
    const second = await page.getByLabel('Invitation link').inputValue();
    expect(second).not.toBe(first);
    await reloadOnce(page, 'member.invitation-reissued');
    expect((await fetch(first)).status).toBe(410);
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'members-pending');

    await confirm(page, { name: 'Withdraw the invitation of kim@acme.test' }, 'Withdraw the invitation of kim@acme.test?', 'Withdraw invitation');
    await page.getByText('Invitation of kim@acme.test withdrawn.').waitFor();
    await reloadOnce(page, 'member.invitation-withdrawn');
    expect((await fetch(second)).status).toBe(410);

    await confirm(page, { name: 'Remove Max Member from the workspace' }, 'Remove Max Member from the workspace?', 'Remove member');
    await page.getByText('Max Member (member@acme.test) removed from the workspace.').waitFor();
    await reloadOnce(page, 'member.removed');
    await context.close();
  });


});

describe('e-mail buttons in a browser with no session', () => {
  it('unsubscribe and acknowledge land on a result shown once; a reload posts nothing and shows nothing more', async () => {
    const { context, page } = await newPage(browser);
    const posts: string[] = [];
    page.on('request', (r) => void (r.method() === 'POST' && posts.push(new URL(r.url()).pathname)));

    // The owner: the members test above removed Max Member from the workspace.
    const channel = await h.services.accounts.createChannel({ workspaceId: seed.ws.id, name: 'Mail buttons', icon: '📬' });
    await page.goto(h.services.unsubscribe.url(seed.owner.id, channel.id));
    await page.getByRole('button', { name: /^Stop e-mails from / }).click();
    await page.getByRole('heading', { name: 'Unsubscribed', level: 1 }).waitFor();
    expect(await page.textContent('main')).toContain('from Mail buttons');
    expect(page.url()).toMatch(/\/unsubscribe\/done\?flash=/);
    expect((await h.services.notifyPrefs.recipient(channel.id, seed.owner.id))!.level).toBe('none');
    expect(await axeViolations(page)).toEqual([]);
    await page.reload();
    await page.getByRole('heading', { name: 'Nothing more to do', level: 1 }).waitFor();

    const res = await fetch(`${h.config.publicUrl}/api/webhook/${channel.webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title: 'Queue backlog', level: 'error' }) });
    const { alertId } = (await res.json()) as { alertId: string };
    await page.goto(h.services.alertActionLinks.url(seed.owner.id, alertId, 'acknowledge'));
    await page.getByRole('button', { name: /^Acknowledge as / }).click();
    await page.getByRole('heading', { name: 'Acknowledged “Queue backlog”', level: 1 }).waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await screenshots(page, 'email-button-done');
    await page.reload();
    await page.getByRole('heading', { name: 'Nothing more to do', level: 1 }).waitFor();
    expect(await h.query('SELECT action, via FROM alert_history WHERE alert_id = ?', [alertId])).toEqual([{ action: 'acknowledged', via: 'email' }]);
    // One POST per button pressed: the reloads posted nothing.
    expect(posts).toEqual(['/unsubscribe', '/alert-action']);
    expect(cspViolations(page)).toEqual([]);
    await context.close();
  });
});
