import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createApp, type App } from '../../src/http/app.js';
import type { Mailer } from '../../src/notify/mailer.js';
import { openServices, type ServiceOverrides, type Services } from '../../src/services.js';
import { bodyOf, type WebhookAnswer } from './bodies.js';
import { otherConnection, type OtherConnection } from './other-connection.js';
import { describePg, freshDatabase, type FreshDatabase } from './pg.js';
import { seedFromSqliteTemplate } from './sqlite-template.js';

export type Engine = 'sqlite' | 'postgres';
export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** The engine a file's harnesses use: SQLite, or PostgreSQL when TEST_ENGINE=postgres (the `*-on-postgres` projects of vitest.config.ts). */
export function testEngine(): Engine {
  return process.env.TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
}

/** Cheap scrypt for tests (test/dashboard/helpers.ts uses the same). */
const TEST_SCRYPT = { N: 2 ** 12, r: 8, p: 1 };

type Call = (method: string, path: string, opts?: { token?: string; json?: unknown; headers?: Record<string, string>; body?: BodyInit }) => Promise<Response>;

/** One node: the real services (the service's own `openServices`) and the real app over them. */
export interface HarnessNode {
  config: Config;
  services: Services;
  app: App;
  /** Served: http://127.0.0.1:PORT (PUBLIC_URL is that port); in-process: PUBLIC_URL. */
  base: string;
  /** A request to this node (real HTTP when served, else `app.request`); `token` as Bearer, `json` as the body. */
  call: Call;
  close(): Promise<void>;
}

/** A database of either engine, a DATA_DIR (media) shared by its nodes, and the first node. */
export interface Harness extends HarnessNode {
  engine: Engine;
  dir: string;
  /** Rows read straight from the database through another connection (test/helpers/other-connection.ts). */
  query: OtherConnection['query'];
  count: OtherConnection['count'];
  exec: OtherConnection['exec'];
  /** Another node on the same database and media directory (PostgreSQL only: one SQLite file has one process). */
  node(opts?: NodeOptions): Promise<HarnessNode>;
  /**
   * A service restart on either engine: every node still open is closed, then one new node starts
   * on the same database and DATA_DIR (with the harness's env and `opts`). The harness's own node
   * members (services, call, ...) stay those of the first node: use the returned node.
   */
  restart(opts?: NodeOptions): Promise<HarnessNode>;
  /** Closes every node still open (a service stopped), keeping the database and DATA_DIR for `restart`. */
  stopNodes(): Promise<void>;
}

export interface NodeOptions {
  env?: Record<string, string>;
  overrides?: ServiceOverrides;
  /** The dashboard's mailer (null: none, as without SMTP_URL). */
  mailer?: Mailer | null;
}

export interface HarnessOptions extends NodeOptions {
  /** Default: testEngine(). */
  engine?: Engine;
  /** An existing DATA_DIR (an installation a test prepared); default: a new temp dir. */
  dir?: string;
  /** Served on a loopback port (real HTTP, PUBLIC_URL is the port, cheap scrypt, no mail unless `mailer`); default: in-process. */
  serve?: boolean;
  /**
   * PostgreSQL, inside describeEngines only: start on a database an earlier harness of the same block
   * closed and emptied (every table truncated, the migrations kept), instead of creating and migrating
   * a new one: 1–3 s less per harness on a busy machine. The block's afterAll drops those databases.
   */
  reuseDatabase?: boolean;
}

/** Closed and emptied databases, ready for the next `reuseDatabase` harness of the running describeEngines block(s). */
const spareDatabases: FreshDatabase[] = [];
let reuseScopes = 0;

/** A temp directory (a DATA_DIR), removed by the harness that uses it. */
export function tempDir(prefix = 'alertbridge-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** `app.request` with JSON helpers: a Bearer token, a JSON body. */
export function callOf(app: App): Call {
  return requestWith((p, init) => app.request(p, init));
}

function requestWith(send: (path: string, init: RequestInit) => Promise<Response> | Response): Call {
  return async (method, p, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token !== undefined) headers.authorization = `Bearer ${o.token}`;
    let body = o.body;
    if (o.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(o.json);
    }
    return send(p, { method, headers, body });
  };
}

/**
 * The real services and app on SQLite (a temp DATA_DIR) or on PostgreSQL (a fresh database on
 * TEST_DATABASE_URL's server, dropped at close), built by the service's own `openServices`;
 * in-process (`app.request`) or served over loopback HTTP (`serve: true`).
 */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const engine = opts.engine ?? testEngine();
  const dir = opts.dir ?? tempDir(opts.serve ? 'alertbridge-engine-' : 'alertbridge-');
  let fresh: FreshDatabase | undefined;
  if (engine === 'postgres') {
    if (opts.reuseDatabase && reuseScopes === 0) throw new Error('reuseDatabase needs a describeEngines block (its afterAll drops the databases)');
    fresh = (opts.reuseDatabase ? spareDatabases.pop() : undefined) ?? (await freshDatabase({ migrated: true }));
  }
  const nodes: HarnessNode[] = [];
  const startNode = async (o: NodeOptions): Promise<HarnessNode> => {
    // Assigned once below: the server is listening before the app exists (its port goes into PUBLIC_URL).
    // eslint-disable-next-line prefer-const
    let app: App | undefined;
    const server = opts.serve ? await listen((req) => app!.fetch(req)) : undefined;
    const config = loadConfig({
      DATA_DIR: dir,
      PUBLIC_URL: server?.url ?? 'http://alertbridge.test',
      LOG_LEVEL: 'silent',
      AVATAR_BASE_URL: '',
      // Hermetic: no test reaches a sender's avatar host unless it asks (test/webhook/avatars.test.ts).
      AVATAR_FETCH: '0',
      ...(fresh ? { DATABASE_URL: fresh.url, PG_POOL_MAX: '4' } : {}),
      ...opts.env,
      ...o.env,
    });
    if (!config.databaseUrl) seedFromSqliteTemplate(config.dbFile);
    const services = await openServices(config, server ? { scrypt: TEST_SCRYPT, ...o.overrides } : o.overrides);
    const mailer = o.mailer !== undefined ? o.mailer : opts.mailer;
    app = createApp(services, server ? { dashboard: { mailer: mailer ?? null } } : mailer !== undefined ? { dashboard: { mailer } } : {});
    let closed = false;
    const node: HarnessNode = {
      config,
      services,
      app,
      base: server?.url ?? config.publicUrl,
      call: server ? requestWith((p, init) => fetch(new URL(p, server.url), { ...init, redirect: 'manual' })) : callOf(app),
      close: async () => {
        if (closed) return;
        closed = true;
        services.live.closeAll();
        await server?.close();
        await services.close();
      },
    };
    nodes.push(node);
    return node;
  };
  const first = await startNode(opts);
  const reader = otherConnection(fresh ? { url: fresh.url } : { dbFile: first.config.dbFile });
  const stopNodes = async () => {
    for (const n of nodes.splice(0).reverse()) await n.close();
  };
  return {
    ...first,
    engine,
    dir,
    query: reader.query,
    count: reader.count,
    exec: reader.exec,
    node: (o = {}) => {
      if (engine === 'sqlite') throw new Error('a second node needs PostgreSQL');
      return startNode(o);
    },
    restart: async (o = {}) => {
      await stopNodes();
      return startNode(o);
    },
    stopNodes,
    close: async () => {
      await stopNodes();
      try {
        // The nodes are closed: nothing writes any more. A database that cannot be emptied is dropped, not reused.
        if (fresh && opts.reuseDatabase) {
          await emptyDatabase(reader);
          spareDatabases.push(fresh);
        }
      } finally {
        await reader.close();
        if (fresh && !spareDatabases.includes(fresh)) await fresh.drop();
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** startHarness served over loopback HTTP on `engine` (the multi-node, restart and browser-facing tests). */
export function createEngineHarness(engine: Engine, opts: Omit<HarnessOptions, 'engine' | 'serve'> = {}): Promise<Harness> {
  return startHarness({ ...opts, engine, serve: true });
}

/** Every table of the app emptied (the drizzle schema, with the applied migrations, is kept): a migrated database as on its first start. */
async function emptyDatabase(db: OtherConnection): Promise<void> {
  const rows = await db.query<{ t: string }>("SELECT format('%I.%I', schemaname, tablename) AS t FROM pg_tables WHERE schemaname = 'public'");
  if (rows.length > 0) await db.exec(`TRUNCATE ${rows.map((r) => r.t).join(', ')} RESTART IDENTITY CASCADE`);
}

/** `describe` for each engine: SQLite always; PostgreSQL when TEST_DATABASE_URL is set (skipped with a printed reason, failing under CI=true). */
export function describeEngines(name: string, body: (engine: Engine) => void): void {
  for (const engine of ENGINES) {
    const title = `${name} (${engine})`;
    if (engine === 'postgres') {
      describePg(title, () => {
        beforeAll(() => {
          reuseScopes++;
        });
        afterAll(async () => {
          if (--reuseScopes > 0) return;
          for (const db of spareDatabases.splice(0)) await db.drop();
        });
        body(engine);
      });
    } else describe(title, () => body(engine));
  }
}

/** Serves an app on an ephemeral loopback port (real HTTP). */
export async function listen(fetch: (req: Request, env?: unknown) => Response | Promise<Response>): Promise<{ url: string; server: ServerType; close(): Promise<void> }> {
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
