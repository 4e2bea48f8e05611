import type { Browser, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, newPage } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { browserSuite, type DashHarness, signInAs } from './helpers.js';

/**
 * Every dashboard page in a real Chromium, filled with hostile data (a
 * 100-character unbroken channel name, 3,000-character messages, 40 channels,
 * long token, member and audit entries): nothing scrolls sideways at phone
 * width (390 px) or on a desktop, and axe finds no serious or critical
 * violation in either theme at either width.
 */
let browser: Browser;
let h: DashHarness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;

browserSuite((s) => ({ browser, h, seed } = s));

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
const LONG = 'x'.repeat(100);
const WORDS = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');

async function post(webhookToken: string, payload: unknown): Promise<string> {
  const res = await fetch(`${h.config.publicUrl}/api/webhook/${webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { alertId: string }).alertId;
}

/** The hostile workspace: what a real one reaches after a year, and what a careless sender posts. */
async function hostileData() {
  const a = h.services.accounts;
  const wide = await a.createChannel({ workspaceId: seed.ws.id, name: `Channel${LONG}`.slice(0, 100), slug: 'wide', icon: '📛' });
  for (let i = 1; i <= 38; i++) await a.createChannel({ workspaceId: seed.ws.id, name: `Service ${i} ${'production-eu-west'.repeat(i % 3)}`, icon: '🧪' });
  const longUser = await a.createUser(`${'y'.repeat(60)}@${'z'.repeat(40)}.test`, `Person${LONG}`.slice(0, 100));
  await a.addMember(seed.ws.id, longUser.id, 'member');
  await a.createToken(seed.ws.id, seed.owner.id, `Token${LONG}`.slice(0, 100));
  await h.services.accountAuth.invitations.invite({ workspaceId: seed.ws.id, email: `${'w'.repeat(60)}@${'v'.repeat(40)}.test`, role: 'member', invitedBy: seed.owner.id });
  await h.services.accountAuth.audit.record(seed.ws.id, longUser.id, 'channel.renamed', `${LONG}${LONG}`, '2001:db8:85a3:0000:0000:8a2e:0370:7334');
  const alertId = await post(wide.webhookToken, {
    title: `Title${LONG}`,
    level: 'ERROR',
    message: `${'m'.repeat(3000)}`,
    source: `Source${LONG}`,
    fields: [
      { name: `Field${LONG}`.slice(0, 100), value: `Value${LONG}`, inline: true },
      { name: 'url', value: `https://example.test/${LONG}${LONG}` },
    ],
    linkUrl: `https://example.test/${LONG}`,
    linkText: `Open${LONG}`.slice(0, 100),
    actor: { name: `Actor${LONG}`, email: `${'a'.repeat(60)}@example.test` },
  });
  await post(wide.webhookToken, { title: 'A long message with words', level: 'INFO', message: WORDS.slice(0, 3000) });
  await post(seed.general.webhookToken, { title: 'Deploy api v1.42', level: 'SUCCESS', emoji: 'rocket' });
  // Routes: a long target, a webhook's JSON preview, and one paused with a long reason.
  const routes = h.services.routes.routes;
  await routes.create(wide.id, 'slack', { url: `https://hooks.slack.com/services/${'T'.repeat(200)}` }, { source: `Source${LONG}`, fields: [{ label: `Field${LONG}`, value: `Value${LONG}` }] });
  const route = await routes.create(wide.id, 'webhook', { url: `https://${'h'.repeat(60)}.example.com/hook` }, {});
  await h.services.routes.outbox.pauseRoute(route.id, `paused after failing for an hour: ${'e'.repeat(300)}`, Date.now());
  await h.services.silences.create({ workspaceId: seed.ws.id, channel: wide.id, source: `Source${LONG}`, titleContains: `Title${LONG}`, for: '2h', comment: `Maintenance ${LONG}${LONG}`, actor: 'owner@acme.test' });
  // A heartbeat check with a 100-character name, down with a long failing log.
  const beats = h.services.heartbeats.checks;
  const check = await beats.create({ channelId: wide.id, name: `Backup${LONG}`.slice(0, 100), period: '1h', grace: '5m' });
  await fetch(`${h.config.publicUrl}/ping/${check.pingUuid}/fail`, { method: 'POST', body: `${'x'.repeat(400)} ${WORDS.slice(0, 2000)}` });
  // A single sign-on group with a long unbroken name opening a private channel with a long name.
  const vault = await a.createChannel({ workspaceId: seed.ws.id, name: `Vault${LONG}`.slice(0, 100), slug: 'v'.repeat(60), isPrivate: true });
  await h.services.sso.signOn.setMapping({ workspaceId: seed.ws.id, group: `Group${LONG}${LONG}`.slice(0, 200), role: 'admin' }, [vault.id]);
  return { wide, alertId, routeId: route.id, checkId: check.id };
}

const signIn = (page: Page, userId: string) => signInAs(h, page, userId);

/** How far the page scrolls sideways (0 when it does not), and what sticks out when it does. */
async function sideways(page: Page): Promise<{ overflow: number; culprits: string[] }> {
  return page.evaluate(() => {
    const root = document.documentElement;
    const overflow = root.scrollWidth - root.clientWidth;
    const culprits = overflow > 0
      ? [...document.querySelectorAll('body *')]
          .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1 && !el.closest('[popover]:not(:popover-open)'))
          .slice(0, 5)
          .map((el) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} right=${Math.round(el.getBoundingClientRect().right)}`)
      : [];
    return { overflow, culprits };
  });
}

describe('every dashboard page', () => {
  // 28 pages × 2 widths × 2 themes of axe scans: minutes on a loaded two-core machine.
  it('fits a 390 px phone with hostile data and passes axe in both themes at both widths', { timeout: 600_000 }, async () => {
    const { wide, alertId, routeId, checkId } = await hostileData();
    const invite = await h.services.accountAuth.invitations.invite({ workspaceId: seed.ws.id, email: 'newcomer@acme.test', role: 'member', invitedBy: seed.owner.id });
    const { context, page } = await newPage(browser);
    await signIn(page, seed.owner.id);
    const signedIn = [
      '/feed',
      '/feed/unread',
      '/feed/c/wide',
      '/search?q=word42',
      '/channels',
      `/channels/${wide.id}`,
      `/channels/${wide.id}/webhook`,
      '/tokens',
      '/members',
      '/members/sso-groups',
      '/usage',
      '/audit',
      '/profile',
      `/feed/delete/${alertId}`,
      `/channels/${wide.id}/routes/new`,
      `/channels/${wide.id}/routes/new?kind=telegram`,
      `/channels/${wide.id}/routes/${routeId}`,
      `/alerts/${alertId}/deliveries`,
      '/silences',
      '/heartbeats',
      `/heartbeats/${checkId}`,
      '/no-such-page',
    ];
    const problems: string[] = [];
    const walk = async (p: Page, paths: string[]) => {
      for (const path of paths) {
        await p.goto(`${h.config.publicUrl}${path}`);
        for (const viewport of [PHONE, DESKTOP]) {
          await p.setViewportSize(viewport);
          const { overflow, culprits } = await sideways(p);
          if (overflow > 0) problems.push(`${path} at ${viewport.width}px scrolls ${overflow}px sideways: ${culprits.join('; ')}`);
          for (const scheme of ['light', 'dark'] as const) {
            await p.emulateMedia({ colorScheme: scheme });
            for (const v of await axeViolations(p)) problems.push(`${path} ${viewport.width}px ${scheme}: ${v}`);
          }
        }
      }
    };
    await walk(page, signedIn);
    expect(cspViolations(page)).toEqual([]);
    await context.close();

    // Signed out: the sign-in page, an invitation, and an e-mail's buttons (unsubscribe from the
    // 100-character channel, acknowledge) with the pages they land on once used.
    const anon = await newPage(browser);
    const unsubscribe = new URL(h.services.unsubscribe.url(seed.member.id, wide.id));
    const acknowledge = new URL(h.services.alertActionLinks.url(seed.owner.id, alertId, 'acknowledge'));
    await walk(anon.page, ['/sign-in', `/invite?t=${invite.secret}`, unsubscribe.pathname + unsubscribe.search, acknowledge.pathname + acknowledge.search, '/unsubscribe/done', '/alert-action/done']);
    await anon.context.close();
    expect(problems).toEqual([]);
  });
});
