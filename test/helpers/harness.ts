import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { loadConfig, type Config } from '../../src/config.js';
import { createApp, type App } from '../../src/http/app.js';
import { createServices, type ServiceOverrides, type Services, type SqliteServices } from '../../src/services.js';
import { bodyOf, type WebhookAnswer } from './bodies.js';

export interface Harness {
  dir: string;
  config: Config;
  services: SqliteServices;
  app: App;
  /** `app.request` with JSON helpers. */
  call(method: string, path: string, opts?: { token?: string; json?: unknown; headers?: Record<string, string>; body?: BodyInit }): Promise<Response>;
  close(): Promise<void>;
}

/** `app.request` with JSON helpers: a Bearer token, a JSON body. */
export function callOf(app: App): Harness['call'] {
  return async (method, p, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    let body = o.body;
    if (o.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(o.json);
    }
    return app.request(p, { method, headers, body });
  };
}

/** The app over `services`, with `call`; `close` runs `closeServices`, then removes `dir`. */
export function harnessOver<S extends Services>(dir: string, config: Config, services: S, closeServices: () => Promise<void>) {
  const app = createApp(services);
  return {
    dir,
    config,
    services,
    app,
    call: callOf(app),
    close: async () => {
      await closeServices();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A temp DATA_DIR with a fresh SQLite file, the real services and the real app. */
export function tempDir(prefix = 'alertbridge-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function createHarness(opts: { env?: Record<string, string>; overrides?: ServiceOverrides; dir?: string } = {}): Harness {
  const dir = opts.dir ?? tempDir();
  const config = loadConfig({
    DATA_DIR: dir,
    PUBLIC_URL: 'http://alertbridge.test',
    LOG_LEVEL: 'silent',
    AVATAR_BASE_URL: '',
    ...opts.env,
  });
  const services = createServices(config, opts.overrides);
  return harnessOver(dir, config, services, async () => services.close());
}

/** Serves an app on an ephemeral loopback port (real HTTP). */
export async function listen(fetch: (req: Request) => Response | Promise<Response>): Promise<{ url: string; server: ServerType; close(): Promise<void> }> {
  return new Promise((resolve) => {
    const server = serve({ fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
      resolve({
        url: `http://127.0.0.1:${info.port}`,
        server,
        close: () =>
          new Promise<void>((r) => {
            (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
            server.close(() => r());
          }),
      });
    });
  });
}

/** A workspace with an owner, a member, an outsider, public and private channels and tokens. */
export async function seedWorkspace(s: Services) {
  const a = s.accounts;
  const ws = await a.createWorkspace('Acme');
  const owner = await a.createUser('owner@acme.test', 'Olive Owner');
  const member = await a.createUser('member@acme.test', 'Max Member');
  await a.addMember(ws.id, owner.id, 'owner');
  await a.addMember(ws.id, member.id, 'member');
  const general = await a.createChannel({ workspaceId: ws.id, name: 'General', icon: '📢' });
  const deploys = await a.createChannel({ workspaceId: ws.id, name: 'Deploys', icon: '🚀' });
  const secret = await a.createChannel({ workspaceId: ws.id, name: 'Security', slug: 'security', icon: '🔒', isPrivate: true });
  await a.addChannelMember(secret.id, owner.id);
  const ownerToken = (await a.createToken(ws.id, owner.id, 'owner laptop')).token;
  const memberToken = (await a.createToken(ws.id, member.id, 'member laptop')).token;
  // Another workspace whose channels must never show up.
  const other = await a.createWorkspace('Other');
  const stranger = await a.createUser('stranger@other.test', 'Sam Stranger');
  await a.addMember(other.id, stranger.id, 'owner');
  const otherChannel = await a.createChannel({ workspaceId: other.id, name: 'General' });
  const strangerToken = (await a.createToken(other.id, stranger.id)).token;
  return { ws, owner, member, general, deploys, secret, ownerToken, memberToken, other, stranger, otherChannel, strangerToken };
}

/** POSTs to a webhook; the body is read by the schema its status documents (accepted, or a problem). */
export async function postAlert(h: Pick<Harness, 'call'>, webhookToken: string, payload: unknown, headers: Record<string, string> = {}): Promise<{ res: Response; body: WebhookAnswer }> {
  const res = await h.call('POST', `/api/webhook/${webhookToken}`, { json: payload, headers });
  return { res, body: await bodyOf.webhookAnswer(res) };
}

/** A request with exactly these headers (fetch would not send a false Content-Length). */
export function rawRequest(base: string, method: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Closes a test's own origin server, if the test started one. */
export async function closeServer(server: http.Server | undefined): Promise<void> {
  if (server) await new Promise((r) => server.close(r));
}

/** Rows in a table of the harness's database, read directly (what was stored, whatever the API says). */
export function tableCount(h: Harness, table: string): number {
  return h.services.db.sqlite.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get() ?? 0;
}
