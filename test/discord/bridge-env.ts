import type { DiscordLinks } from '../../src/domain/chat/links.js';
import { startDiscordBridge, type DiscordBridgeHandle, type DiscordBridgeOptions } from '../../src/discord/index.js';
import { bodyOf, type WebhookAnswer } from '../helpers/bodies.js';
import { createEngineHarness, type Engine, type Harness, type HarnessNode, seedWorkspace } from '../helpers/harness.js';
import { FakeDiscord } from '../helpers/fake-discord/index.js';
import { eventually } from '../helpers/poll.js';

// The Client reads these; a sharded CI environment must not leak into the tests.
delete process.env.SHARDS;
delete process.env.SHARD_COUNT;

/** Fast timers for tests: new links and retries within ~50 ms. */
export const FAST: DiscordBridgeOptions = {
  refreshIntervalMs: 50,
  retryBaseMs: 50,
  retryMaxMs: 200,
  client: { rest: { globalRequestsPerSecond: 10_000 } },
};

/** A chat message as the read API lists it. */
export type ChatMessage = Awaited<ReturnType<typeof bodyOf.chatPage>>['alerts'][number];

/**
 * A fake Discord with the seeded guild, the real services + HTTP app (served over loopback) on
 * either engine: a temp DATA_DIR with the SQLite file, or a fresh PostgreSQL database built by the
 * service's own `openServices` (test/helpers/harness.ts). Chat channel `community` is
 * connected to #alerts, and the real bridge runs. Rows are read through `query()` (another
 * connection), never through the node's own handle.
 */
export class BridgeEnv {
  fake!: FakeDiscord;
  seed!: ReturnType<FakeDiscord['seedGuild']>;
  /** The database (and DATA_DIR) of either engine; outlives a service restart. */
  db!: Harness;
  /** The running service (a new one after restartService). */
  h!: HarnessNode;
  bridge: DiscordBridgeHandle | null = null;
  ws!: Awaited<ReturnType<typeof seedWorkspace>>;
  channel!: { id: string; slug: string; webhookToken: string };

  private constructor(readonly engine: Engine) {}

  static async create(opts: { engine?: Engine; bridge?: DiscordBridgeOptions; connect?: boolean } = {}): Promise<BridgeEnv> {
    const env = new BridgeEnv(opts.engine ?? 'sqlite');
    env.fake = new FakeDiscord({ now: Date.UTC(2025, 0, 15, 12, 0, 0) });
    await env.fake.start();
    env.seed = env.fake.seedGuild('Ops');
    env.db = await createEngineHarness(env.engine, { env: env.serviceEnv, reuseDatabase: true });
    env.h = env.db;
    // A PostgreSQL block that silently ran on the SQLite file would prove nothing.
    if (env.h.services.engine !== env.engine) throw new Error(`BridgeEnv: asked for ${env.engine}, built ${env.h.services.engine}`);
    env.ws = await seedWorkspace(env.h.services);
    env.channel = await env.h.services.accounts.createChannel({ workspaceId: env.ws.ws.id, name: 'Community', slug: 'community', icon: '💬' });
    if (opts.connect !== false) await env.links().connect(env.channel.id, env.seed.channel.id);
    await env.startBridge(opts.bridge);
    return env;
  }

  /** DATA_DIR (media and, on SQLite, the database file) */
  get dir(): string {
    return this.db.dir;
  }

  /** The environment of the service and of the admin CLI: DATA_DIR, and DATABASE_URL on PostgreSQL. */
  get env(): Record<string, string> {
    const url = this.h.config.databaseUrl;
    return { DATA_DIR: this.dir, ...this.serviceEnv, ...(url ? { DATABASE_URL: url } : {}) };
  }

  private get serviceEnv(): Record<string, string> {
    return {
      PUBLIC_URL: 'http://alertbridge.test',
      LOG_LEVEL: 'silent',
      AVATAR_BASE_URL: '',
      DISCORD_TOKEN: this.fake.token,
      DISCORD_API_URL: this.fake.apiUrl,
      ATTACHMENT_FETCH_ALLOW_PRIVATE: '1',
      // Released files go at once on SQLite; test/reliability/media-grace.test.ts covers the grace period.
      // PostgreSQL refuses 0 (nodes share the files): there they are due after 36 ms, for the next sweep.
      MEDIA_ORPHAN_GRACE_HOURS: this.engine === 'postgres' ? '0.00001' : '0',
    };
  }

  links(): DiscordLinks {
    const s = this.h.services;
    return s.discordLinks;
  }

  /** Starts the bridge and waits until the first backfill pass of the connected channel is over. */
  async startBridge(opts: DiscordBridgeOptions = {}): Promise<DiscordBridgeHandle> {
    this.bridge = await startDiscordBridge(this.h.services, { ...FAST, ...opts });
    await this.bridge.ready;
    await this.caughtUp();
    return this.bridge;
  }

  /** The connected channel's backfill is complete and the live stream counts. */
  async caughtUp(discordChannelId = this.seed.channel.id): Promise<void> {
    const sync = this.bridge!.sync;
    await eventually(() => {
      const st = sync.stateOf(discordChannelId);
      return !st || (st.isLive && !st.backfilling && st.pendingLive === 0);
    }, 'backfill to finish');
    await sync.idle();
  }

  /** Stops the bridge and the service, keeping the database and DATA_DIR (the first half of a restart). */
  async stopService(): Promise<void> {
    await this.bridge?.stop();
    this.bridge = null;
    await this.db.stopNodes();
  }

  /** A new service process on the same database and DATA_DIR, with its bridge. */
  async restartService(opts: DiscordBridgeOptions = {}): Promise<void> {
    this.h = await this.db.restart();
    await this.startBridge(opts);
  }

  async close(): Promise<void> {
    await this.bridge?.stop();
    this.bridge = null;
    await this.db.close();
    await this.fake.stop();
  }

  /** Rows read straight from the database by another connection (`?` placeholders on both engines). */
  query<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
    return this.db.query<T>(sql, params);
  }

  /** A webhook POST to the chat channel (refused while it is connected). */
  async postWebhook(payload: unknown): Promise<{ res: Response; body: WebhookAnswer }> {
    const res = await this.h.call('POST', `/api/webhook/${this.channel.webhookToken}`, { json: payload });
    return { res, body: await bodyOf.webhookAnswer(res) };
  }

  /** The chat rows of the connected channel, counted in the database. */
  async countRows(): Promise<number> {
    const [row] = await this.query<{ n: number }>("SELECT count(*) AS n FROM alerts WHERE channel_id = ? AND kind = 'chat'", [this.channel.id]);
    return row!.n;
  }

  /** Sends a message as `authorId` (default alice) one second after the previous one. */
  send(init: Partial<Parameters<FakeDiscord['sendMessage']>[0]> = {}) {
    this.fake.advanceTime(1_000);
    return this.fake.sendMessage({ channelId: this.seed.channel.id, authorId: this.seed.alice.id, ...init });
  }

  missed(init: Partial<Parameters<FakeDiscord['sendMessage']>[0]> = {}) {
    this.fake.advanceTime(1_000);
    return this.fake.postWhileDisconnected({ channelId: this.seed.channel.id, authorId: this.seed.alice.id, ...init });
  }

  /** GET the channel's alerts through the real read API. */
  async list(query = '', token = this.ws.ownerToken) {
    const res = await this.h.call('GET', `/api/channels/community/alerts${query}`, { token });
    if (res.status !== 200) throw new Error(`list: ${res.status} ${await res.text()}`);
    return bodyOf.chatPage(res);
  }

  /** Waits until the API lists exactly `n` messages (or until `pred` holds); returns them oldest first. */
  async waitForMessages(n: number, pred?: (alerts: ChatMessage[]) => boolean): Promise<ChatMessage[]> {
    let alerts: ChatMessage[] = [];
    await eventually(async () => {
      alerts = (await this.list('?limit=100')).alerts.reverse();
      return alerts.length === n && (!pred || pred(alerts));
    }, `${n} messages in the API`);
    return alerts;
  }

  /** The link's sync mark as stored. */
  async syncedUntil(): Promise<string | null> {
    const [row] = await this.query<{ s: string | null }>('SELECT synced_until AS s FROM discord_links WHERE channel_id = ?', [this.channel.id]);
    return row?.s ?? null;
  }
}
