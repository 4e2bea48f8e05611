import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createApp, type App } from '../../src/http/app.js';
import type { Mailer } from '../../src/notify/mailer.js';
import { startAccountMailer, type AccountMailer } from '../../src/notify/account-mail-worker.js';
import { openServices, sqliteServicesOf, type ServiceOverrides, type Services, type SqliteServices } from '../../src/services.js';
import { type Engine, listen, seedWorkspace, tempDir } from '../helpers/harness.js';
import { otherConnection } from '../helpers/other-connection.js';
import { freshDatabase, type FreshDatabase } from '../helpers/pg.js';
import { launchBrowser } from '../helpers/browser.js';
import { seedFromSqliteTemplate } from '../helpers/sqlite-template.js';

/** Cheap scrypt for tests that sign in with passwords; one test checks the production parameters. */
export const TEST_SCRYPT = { N: 2 ** 12, r: 8, p: 1 };

export interface DashHarness {
  dir: string;
  config: Config;
  services: Services;
  app: App;
  /** The origin the dashboard expects in Origin headers (PUBLIC_URL's). */
  origin: string;
  /** A one-time sign-in link URL for a user, as `admin login-link` prints it. */
  link(userId: string): Promise<string>;
  /** The account e-mail worker the harness runs when it was given a mailer (mail on), else null. */
  accountMailer: AccountMailer | null;
  /** Cuts every open connection to the server, as a network drop would (the server keeps listening). */
  dropConnections(): void;
  /** Rows read straight from the database through another connection (`?` placeholders on both engines; counts as numbers). */
  query<T extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

/**
 * The engine the dashboard's server tests run on: SQLite, or PostgreSQL when TEST_ENGINE=postgres
 * (the `dashboard-on-postgres` project of vitest.config.ts runs the engine-neutral files so).
 */
export function dashboardEngine(): Engine {
  return process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
}

/** The admin CLI's environment for the harness's installation (its DATA_DIR, and its DATABASE_URL on PostgreSQL). */
export function cliEnv(h: DashHarness): Record<string, string> {
  return { DATA_DIR: h.dir, ...(h.config.databaseUrl ? { DATABASE_URL: h.config.databaseUrl } : {}) };
}

/** The SQLite services of a harness, for the few tests that read the file itself (they run on SQLite only). */
export function sqliteOf(h: DashHarness): SqliteServices {
  return sqliteServicesOf(h.services);
}

/**
 * The real app on a real loopback port, with PUBLIC_URL set to that port so the
 * browser's Origin header matches (the port is known only once listening, so
 * the server forwards to an app created right after). On `engine` (default:
 * dashboardEngine()): a temp SQLite file, or a fresh PostgreSQL database dropped at close.
 */
export async function startDashboard(
  opts: { env?: Record<string, string>; overrides?: ServiceOverrides; mailer?: Mailer | null; serve?: boolean; engine?: Engine } = {},
): Promise<DashHarness> {
  const dir = tempDir('alertbridge-dash-');
  const fresh: FreshDatabase | undefined = (opts.engine ?? dashboardEngine()) === 'postgres' ? await freshDatabase({ migrated: true }) : undefined;
  // Assigned once below: the server is listening before the app exists (its port goes into PUBLIC_URL).
  // eslint-disable-next-line prefer-const
  let app: App | undefined;
  // The node server's bindings go along: the TCP peer (getConnInfo) is what the authenticating proxy check reads.
  const server = opts.serve === false ? undefined : await listen((req, env) => app!.fetch(req, env));
  const config = loadConfig({
    DATA_DIR: dir,
    PUBLIC_URL: server?.url ?? 'http://alertbridge.test',
    LOG_LEVEL: 'silent',
    AVATAR_BASE_URL: '',
    AVATAR_FETCH: '0',
    ...(fresh ? { DATABASE_URL: fresh.url, PG_POOL_MAX: '4' } : {}),
    ...opts.env,
  });
  if (!config.databaseUrl) seedFromSqliteTemplate(config.dbFile);
  const services: Services = await openServices(config, { scrypt: TEST_SCRYPT, ...opts.overrides });
  app = createApp(services, { dashboard: { mailer: opts.mailer ?? null } });
  // With mail on, sign-in links and address confirmations leave through their outbox, as in the runtime.
  const accountMailer = opts.mailer ? startAccountMailer(services, { mailer: opts.mailer }) : null;
  const links = services.accountAuth.signInLinks;
  const other = otherConnection(fresh ? { url: fresh.url } : { dbFile: config.dbFile });

  return {
    dir,
    config,
    services,
    app,
    origin: new URL(config.publicUrl).origin,
    link: async (userId) => `${config.publicUrl}/auth/link?t=${(await links.issue(userId)).secret}`,
    dropConnections: () => (server?.server as { closeAllConnections?: () => void } | undefined)?.closeAllConnections?.(),
    query: other.query,
    accountMailer,
    close: async () => {
      await server?.close();
      await accountMailer?.stop();
      await other.close();
      await services.close();
      await fresh?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A browser-like client over `app.request` (or, with `over: 'http'`, real HTTP to the harness's
 * loopback port, redirects not followed): keeps cookies, sends our Origin on POSTs (unless told
 * otherwise) and the page's CSRF token when asked.
 */
export class DashClient {
  cookies = new Map<string, string>();
  csrf: string | undefined;

  constructor(
    private readonly h: DashHarness,
    private readonly over: 'app' | 'http' = 'app',
  ) {}

  private send(path: string, init: RequestInit): Promise<Response> {
    if (this.over === 'app') return Promise.resolve(this.h.app.request(path, init));
    return fetch(new URL(path, this.h.config.publicUrl), { ...init, redirect: 'manual' });
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const [name, value] = pair!.split('=') as [string, string];
      const expired = attrs.some((a) => /max-age=0/i.test(a.trim()));
      if (expired || value === '') this.cookies.delete(name.trim());
      else this.cookies.set(name.trim(), value);
    }
  }

  async get(path: string): Promise<{ res: Response; html: string }> {
    const res = await this.send(path, { headers: { cookie: this.cookieHeader(), accept: 'text/html' } });
    this.keep(res);
    const html = await res.text();
    const m = /<meta name="csrf-token" content="([^"]+)"/.exec(html);
    if (m) this.csrf = m[1];
    return { res, html };
  }

  async post(
    path: string,
    form: Record<string, string> = {},
    o: { origin?: string | null; csrf?: string | null; headers?: Record<string, string> } = {},
  ): Promise<{ res: Response; html: string }> {
    const headers: Record<string, string> = { cookie: this.cookieHeader(), accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', ...o.headers };
    const origin = o.origin === undefined ? this.h.origin : o.origin;
    if (origin !== null) headers.origin = origin;
    const csrf = o.csrf === undefined ? this.csrf : o.csrf;
    const body = new URLSearchParams({ ...(csrf ? { _csrf: csrf } : {}), ...form });
    const res = await this.send(path, { method: 'POST', headers, body: body.toString() });
    this.keep(res);
    return { res, html: await res.text() };
  }

  /**
   * Posts a form as a browser does and follows its Post/Redirect/Get: the 303's Location is loaded
   * with GET (where a flash shows once). `posted` is the POST's own answer; `res`/`html` the page shown.
   */
  async submit(path: string, form: Record<string, string> = {}, o: Parameters<DashClient['post']>[2] = {}): Promise<{ res: Response; html: string; posted: Response; location: string | null }> {
    const posted = await this.post(path, form, o);
    const location = posted.res.headers.get('location');
    if (posted.res.status !== 303 || !location) return { ...posted, posted: posted.res, location: null };
    const shown = await this.get(location);
    return { ...shown, posted: posted.res, location };
  }

  /** Signs in with a one-time link, pressing the confirmation button as a person would. */
  async signInWithLink(userId: string): Promise<void> {
    const url = new URL(await this.h.link(userId));
    await this.get(url.pathname + url.search);
    const res = await this.post('/auth/link', { t: url.searchParams.get('t')! }, { csrf: null });
    if (res.res.status !== 303) throw new Error(`sign-in failed: ${res.res.status}`);
    await this.get('/channels');
  }
}

/** What a browser test file shares: one Chromium, one dashboard, one seeded workspace. */
export interface BrowserSuite {
  browser: Browser;
  h: DashHarness;
  seed: Awaited<ReturnType<typeof seedWorkspace>>;
}

/**
 * Starts Chromium and the dashboard before the file's tests (in parallel),
 * seeds a workspace, hands them to `ready`, and closes both after the file.
 */
export function browserSuite(ready: (s: BrowserSuite) => void): void {
  let suite: Partial<BrowserSuite> = {};
  beforeAll(async () => {
    const [browser, h] = await Promise.all([launchBrowser(), startDashboard()]);
    suite = { browser, h, seed: await seedWorkspace(h.services) };
    ready(suite as BrowserSuite);
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.h?.close();
  });
}

/** Signs `userId` in through a one-time link and waits for the feed, as a person would. */
export async function signInAs(h: DashHarness, page: Page, userId: string): Promise<void> {
  await page.goto(await h.link(userId));
  await page.getByRole('button', { name: /^Sign in as / }).click();
  await page.getByRole('heading', { name: 'All channels', level: 1 }).waitFor();
}

/** Posts one alert to a channel's webhook, as a sender would, and expects it stored. */
export async function postAlert(h: DashHarness, webhookToken: string, payload: unknown): Promise<void> {
  const res = await fetch(`${h.config.publicUrl}/api/webhook/${webhookToken}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
  expect(res.status).toBe(201);
}
