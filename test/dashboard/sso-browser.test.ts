import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { axeViolations, cspViolations, launchBrowser, newPage } from '../helpers/browser.js';
import { seedWorkspace } from '../helpers/harness.js';
import { CLIENT_ID, CLIENT_SECRET, startTestProvider, type TestProvider } from '../helpers/oidc-provider.js';
import { startDashboard, type DashHarness } from './helpers.js';

// One OpenID sign-in in Chromium: the button, the provider's redirects, and the feed (docs/sso.md).
let op: TestProvider;
let h: DashHarness;
let browser: Browser;

beforeAll(async () => {
  op = await startTestProvider();
  h = await startDashboard({ env: { OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET, OIDC_BUTTON_LABEL: 'Corp SSO', OIDC_LINK_BY_EMAIL: '1' } });
  await op.register(h.config.publicUrl);
  await seedWorkspace(h.services);
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
  await op?.close();
});

describe('OpenID sign-in in Chromium', () => {
  it('signs in with the button and lands signed in, the sign-in page passing axe', async () => {
    op.accounts.set('olive', { email: 'owner@acme.test', email_verified: true, name: 'Olive' });
    op.nextLogin = 'olive';
    const { context, page } = await newPage(browser);
    const csp = cspViolations(page);
    await page.goto(`${h.config.publicUrl}/sign-in`);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await page.waitForURL((u) => u.origin === h.origin && !u.pathname.startsWith('/sign-in') && !u.pathname.startsWith('/auth/'), { timeout: 20_000 });
    await page.goto(`${h.config.publicUrl}/profile`);
    expect(await page.getByText('owner@acme.test').first().isVisible()).toBe(true);
    expect(csp).toEqual([]);
    await context.close();
  });

  it('links an existing account from the Profile page, then signs in with the provider as that account', async () => {
    const seedMember = (await h.query<{ id: string }>("SELECT id FROM users WHERE email LIKE 'member@%'"))[0]!;
    op.accounts.set('pat-sub', { email: 'pat@elsewhere.test', email_verified: false, name: 'Pat' });
    op.nextLogin = 'pat-sub';
    const { context, page } = await newPage(browser);
    const csp = cspViolations(page);
    await page.goto(await h.link(seedMember.id));
    await page.getByRole('button', { name: /^Sign in as / }).click();
    await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
    await page.goto(`${h.config.publicUrl}/profile`);
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Link your Corp SSO account' }).click();
    await page.waitForURL((u) => u.origin === h.origin && u.pathname === '/profile', { timeout: 20_000 });
    await page.getByText('Your account is linked to Corp SSO').first().waitFor();
    expect(csp).toEqual([]);
    await context.close();
    const rows = await h.query<{ user_id: string }>("SELECT user_id FROM oidc_identities WHERE subject = 'pat-sub'");
    expect(rows).toEqual([{ user_id: seedMember.id }]);
    // A fresh browser signs in with the provider and lands as the linked account.
    op.nextLogin = 'pat-sub';
    const fresh = await newPage(browser);
    await fresh.page.goto(`${h.config.publicUrl}/sign-in`);
    await fresh.page.getByRole('link', { name: 'Sign in with Corp SSO' }).click();
    await fresh.page.waitForURL((u) => u.origin === h.origin && !u.pathname.startsWith('/sign-in') && !u.pathname.startsWith('/auth/'), { timeout: 20_000 });
    await fresh.page.goto(`${h.config.publicUrl}/profile`);
    expect(await fresh.page.getByText('Your account is linked to Corp SSO').first().isVisible()).toBe(true);
    await fresh.context.close();
  });
});
