import { eventually } from '../helpers/poll.js';
import fs from 'node:fs';
import type { DiscordLinks } from '../../src/domain/chat/links.js';
import { startDiscordBridge, type DiscordBridgeHandle, type DiscordBridgeOptions } from '../../src/discord/index.js';
import { FakeDiscord } from '../helpers/fake-discord/index.js';
import { createHarness, seedWorkspace, tempDir, type Harness } from '../helpers/harness.js';
import { bodyOf } from '../helpers/bodies.js';

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
 * A fake Discord with the seeded guild, the real services + HTTP app on a temp
 * DATA_DIR (chat channel `community` connected to #alerts), and the real bridge.
 */
export class BridgeEnv {
  fake!: FakeDiscord;
  seed!: ReturnType<FakeDiscord['seedGuild']>;
  h!: Harness;
  bridge: DiscordBridgeHandle | null = null;
  ws!: Awaited<ReturnType<typeof seedWorkspace>>;
  channel!: { id: string; slug: string; webhookToken: string };
  readonly dir = tempDir('alertbridge-discord-');

  static async create(opts: { bridge?: DiscordBridgeOptions; connect?: boolean } = {}): Promise<BridgeEnv> {
    const env = new BridgeEnv();
    env.fake = new FakeDiscord({ now: Date.UTC(2025, 0, 15, 12, 0, 0) });
    await env.fake.start();
    env.seed = env.fake.seedGuild('Ops');
    env.h = env.harness();
    env.ws = await seedWorkspace(env.h.services);
    env.channel = await env.h.services.accounts.createChannel({ workspaceId: env.ws.ws.id, name: 'Community', slug: 'community', icon: '💬' });
    if (opts.connect !== false) await env.links().connect(env.channel.id, env.seed.channel.id);
    await env.startBridge(opts.bridge);
    return env;
  }

  get env(): Record<string, string> {
    return {
      DATA_DIR: this.dir,
      PUBLIC_URL: 'http://alertbridge.test',
      LOG_LEVEL: 'silent',
      AVATAR_BASE_URL: '',
      DISCORD_TOKEN: this.fake.token,
      DISCORD_API_URL: this.fake.apiUrl,
      ATTACHMENT_FETCH_ALLOW_PRIVATE: '1',
      // Released files go at once here; test/reliability/media-grace.test.ts covers the grace period.
      MEDIA_ORPHAN_GRACE_HOURS: '0',
    };
  }

  harness(): Harness {
    const { DATA_DIR: _d, ...env } = this.env;
    return createHarness({ dir: this.dir, env });
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

  /** Stops the bridge and the services, keeping DATA_DIR (a service restart). */
  async stopService(): Promise<void> {
    await this.bridge?.stop();
    this.bridge = null;
    this.h.services.close();
  }

  async restartService(opts: DiscordBridgeOptions = {}): Promise<void> {
    this.h = this.harness();
    await this.startBridge(opts);
  }

  async close(): Promise<void> {
    await this.bridge?.stop();
    this.h.services.close();
    await this.fake.stop();
    fs.rmSync(this.dir, { recursive: true, force: true });
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

  syncedUntil(): string | null {
    const row = this.h.services.db.sqlite.prepare('SELECT synced_until AS s FROM discord_links WHERE channel_id = ?').get(this.channel.id) as
      | { s: string | null }
      | undefined;
    return row?.s ?? null;
  }
}
