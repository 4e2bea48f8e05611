/**
 * The fake gateway: WebSocket connections and sessions, HELLO / IDENTIFY / RESUME / heartbeats / member requests,
 * and dispatches to every live session. Missed events are never replayed (what a backfill test needs).
 */
import type { IncomingMessage, Server } from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import { z } from 'zod';
import type { FakeDiscord } from './fake-discord.js';
import { required } from './http.js';
import { buildGuildCreate, Intent } from './payloads.js';
import type { FakeGuild } from './types.js';

/** What the gateway reads of the fake's configuration and state. */
export type GatewayHost = Pick<FakeDiscord, 'token' | 'heartbeatInterval' | 'privilegedIntents' | 'botUser' | 'guilds' | 'channels' | 'gatewayUrl' | 'nextId' | 'community'>;

// What a client sends (only the fields the fake reads; others are ignored).
const ClientPayload = z.object({ op: z.number(), d: z.unknown() });
const IdentifyData = z.object({
  token: z.string().optional(),
  intents: z.number().optional(),
  shard: z.tuple([z.number(), z.number()]).optional(),
});
const ResumeData = z.object({ token: z.string().optional(), session_id: z.string().optional(), seq: z.number().nullable().optional() });
const oneOrMany = z.union([z.string(), z.array(z.string())]);
const RequestMembersData = z.object({
  guild_id: oneOrMany.optional(),
  query: z.string().optional(),
  limit: z.number().optional(),
  user_ids: oneOrMany.optional(),
  nonce: z.string().optional(),
});

/** What the fake sends: HELLO, heartbeat ACK, INVALID SESSION and dispatches. */
type ServerPayload =
  | { op: 10; d: { heartbeat_interval: number; _trace: string[] } }
  | { op: 11 }
  | { op: 9; d: boolean }
  | { op: 0; t: string; s: number; d: unknown };

interface Session {
  id: string;
  intents: number;
  seq: number;
  conn: Conn | null;
}

interface Conn {
  ws: WebSocket;
  url: string;
  session: Session | null;
}

type Waiter = { target: number; resolve: () => void };
type WaitKind = 'identify' | 'resume';

/** The GUILD_CREATE payload a session sees: without the GuildMembers intent, only the bot's own member. */
export function guildCreateView(host: Pick<GatewayHost, 'botUser' | 'channels' | 'community'>, guild: FakeGuild, intents: number): Record<string, unknown> {
  const members = [...guild.members.values()];
  const withMembers = intents & Intent.GuildMembers ? members : members.filter((m) => m.user.id === host.botUser.id);
  return buildGuildCreate({
    id: guild.id,
    name: guild.name,
    owner_id: guild.owner_id,
    roles: guild.roles,
    members: withMembers,
    channels: guild.channelIds.map((id) => required(host.channels, id, 'channel').payload),
    threads: host.community.activeThreads(guild.id),
  });
}

export class FakeGateway {
  /** Every payload received from clients ({op, d}), in order. */
  readonly received: Array<{ op: number; d: unknown }> = [];
  /** Connection URLs (path + query), in order. */
  readonly connectionUrls: string[] = [];
  identifyCount = 0;
  resumeCount = 0;
  heartbeatCount = 0;
  private readonly sessions = new Map<string, Session>();
  private readonly conns = new Set<Conn>();
  private readonly waiters: Record<WaitKind, Waiter[]> = { identify: [], resume: [] };
  private wss: WebSocketServer | null = null;

  constructor(private readonly host: GatewayHost) {}

  /** Accept WebSocket upgrades on `/gateway` of the REST server. */
  attach(server: Server): void {
    this.wss = new WebSocketServer({ server, path: '/gateway' });
    this.wss.on('connection', (ws, req) => this.onConnection(ws, req));
  }

  close(): void {
    this.terminateAll();
    this.conns.clear();
    this.wss?.close();
    this.wss = null;
  }

  /** Connections that are identified or resumed and open. */
  get sessionCount(): number {
    let n = 0;
    for (const c of this.conns) if (c.session && c.ws.readyState === WebSocket.OPEN) n += 1;
    return n;
  }

  /** Terminate every socket (no close frame); returns how many. */
  terminateAll(): number {
    const n = this.conns.size;
    for (const conn of this.conns) conn.ws.terminate();
    return n;
  }

  closeAll(code: number, reason: string): void {
    for (const conn of this.conns) conn.ws.close(code, reason);
  }

  /** Resolves once the count of `kind` reaches `total`; rejects after `timeoutMs`. */
  waitCount(kind: WaitKind, total: number, timeoutMs: number): Promise<void> {
    if (this.count(kind) >= total) return Promise.resolve();
    const list = this.waiters[kind];
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = list.indexOf(waiter);
        if (i >= 0) list.splice(i, 1);
        reject(new Error(`FakeDiscord: timed out after ${timeoutMs} ms waiting for ${kind} #${total}`));
      }, timeoutMs);
      const waiter: Waiter = {
        target: total,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      list.push(waiter);
    });
  }

  /** Dispatch to every session with a live socket (and the intent, if given). Events for dropped sessions are lost. */
  dispatch(t: string, d: object, intent?: number): void {
    this.dispatchEach(t, () => d, intent);
  }

  /** Like `dispatch`, with the payload built for each session from its intents. */
  dispatchEach(t: string, build: (intents: number) => unknown, intent?: number): void {
    for (const session of this.sessions.values()) {
      if (!session.conn || session.conn.ws.readyState !== WebSocket.OPEN) continue;
      if (intent !== undefined && !(session.intents & intent)) continue;
      this.sendDispatch(session, t, build(session.intents));
    }
  }

  private count(kind: WaitKind): number {
    return kind === 'identify' ? this.identifyCount : this.resumeCount;
  }

  private notify(kind: WaitKind): void {
    const count = this.count(kind);
    const due = this.waiters[kind].filter((w) => w.target <= count);
    this.waiters[kind] = this.waiters[kind].filter((w) => w.target > count);
    for (const w of due) w.resolve();
  }

  private onConnection(ws: WebSocket, req: IncomingMessage): void {
    const conn: Conn = { ws, url: req.url ?? '', session: null };
    this.conns.add(conn);
    this.connectionUrls.push(conn.url);
    ws.on('close', () => {
      this.conns.delete(conn);
      if (conn.session?.conn === conn) conn.session.conn = null;
    });
    ws.on('error', () => undefined);
    ws.on('message', (data, isBinary) => {
      if (isBinary) return ws.close(4002, 'Decode error');
      let json: unknown;
      try {
        json = JSON.parse(data.toString());
      } catch {
        return ws.close(4002, 'Decode error');
      }
      const payload = ClientPayload.safeParse(json);
      if (!payload.success) return ws.close(4001, 'Unknown opcode');
      this.received.push({ op: payload.data.op, d: payload.data.d });
      this.onPayload(conn, payload.data);
    });
    this.sendRaw(conn, { op: 10, d: { heartbeat_interval: this.host.heartbeatInterval, _trace: ['fake-discord'] } });
  }

  private onPayload(conn: Conn, { op, d }: z.infer<typeof ClientPayload>): void {
    switch (op) {
      case 1: // heartbeat
        this.heartbeatCount += 1;
        this.sendRaw(conn, { op: 11 });
        return;
      case 2:
        return this.decoded(conn, IdentifyData, d, (data) => this.onIdentify(conn, data));
      case 6:
        return this.decoded(conn, ResumeData, d, (data) => this.onResume(conn, data));
      case 8:
        return this.decoded(conn, RequestMembersData, d, (data) => this.onRequestMembers(conn, data));
      case 3: // presence update
      case 4: // voice state update
        return;
      default:
        conn.ws.close(4001, 'Unknown opcode');
    }
  }

  /** Hand `d` to `handle` typed by `schema`; a payload of the wrong shape closes with 4002 like Discord. */
  private decoded<S extends z.ZodType>(conn: Conn, schema: S, d: unknown, handle: (data: z.infer<S>) => void): void {
    const parsed = schema.safeParse(d);
    if (!parsed.success) return conn.ws.close(4002, 'Decode error');
    handle(parsed.data);
  }

  private onIdentify(conn: Conn, d: z.infer<typeof IdentifyData>): void {
    const { host } = this;
    if (conn.session) return conn.ws.close(4005, 'Already authenticated');
    if (d.token !== host.token) return conn.ws.close(4004, 'Authentication failed');
    const intents = d.intents ?? 0;
    if (!Number.isInteger(intents) || intents < 0 || intents >= 1 << 26) return conn.ws.close(4013, 'Invalid intent(s)');
    const disallowed =
      (intents & Intent.GuildMembers && !host.privilegedIntents.guildMembers) ||
      (intents & Intent.GuildPresences && !host.privilegedIntents.presences) ||
      (intents & Intent.MessageContent && !host.privilegedIntents.messageContent);
    if (disallowed) return conn.ws.close(4014, 'Disallowed intent(s)');

    const session: Session = { id: `fake-session-${host.nextId()}`, intents, seq: 0, conn };
    this.sessions.set(session.id, session);
    conn.session = session;
    this.identifyCount += 1;
    const guilds = [...host.guilds.values()];
    this.sendDispatch(session, 'READY', {
      v: 10,
      user: host.botUser,
      user_settings: {},
      guilds: guilds.map((g) => ({ id: g.id, unavailable: true })),
      relationships: [],
      private_channels: [],
      presences: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: host.gatewayUrl,
      shard: d.shard ?? [0, 1],
      application: { id: host.botUser.id, flags: 0 },
      _trace: ['fake-discord'],
    });
    for (const g of guilds) this.sendDispatch(session, 'GUILD_CREATE', guildCreateView(host, g, session.intents));
    this.notify('identify');
  }

  private onResume(conn: Conn, d: z.infer<typeof ResumeData>): void {
    if (d.token !== this.host.token) return conn.ws.close(4004, 'Authentication failed');
    const session = d.session_id ? this.sessions.get(d.session_id) : undefined;
    if (!session) {
      this.sendRaw(conn, { op: 9, d: false });
      return;
    }
    // Take the session over (the old socket, if any, is stale). Missed events are NOT replayed.
    const old = session.conn;
    if (old && old !== conn) {
      old.session = null;
      old.ws.terminate();
    }
    session.conn = conn;
    conn.session = session;
    this.resumeCount += 1;
    this.sendDispatch(session, 'RESUMED', { _trace: ['fake-discord'] });
    this.notify('resume');
  }

  private onRequestMembers(conn: Conn, d: z.infer<typeof RequestMembersData>): void {
    const session = conn.session;
    if (!session) return conn.ws.close(4003, 'Not authenticated');
    const guildIds = Array.isArray(d.guild_id) ? d.guild_id : [d.guild_id ?? ''];
    for (const guildId of guildIds) {
      const guild = this.host.guilds.get(guildId);
      if (!guild) continue;
      let members = [...guild.members.values()];
      let notFound: string[] | undefined;
      if (d.user_ids !== undefined) {
        const ids = Array.isArray(d.user_ids) ? d.user_ids : [d.user_ids];
        members = members.filter((m) => ids.includes(m.user.id));
        notFound = ids.filter((id) => !guild.members.has(id));
      } else if (d.query) {
        const q = d.query.toLowerCase();
        members = members.filter((m) => m.user.username.toLowerCase().startsWith(q) || (m.nick ?? '').toLowerCase().startsWith(q));
      }
      if (d.limit && d.limit > 0) members = members.slice(0, d.limit);
      const chunk: Record<string, unknown> = { guild_id: guild.id, members, chunk_index: 0, chunk_count: 1 };
      if (notFound?.length) chunk.not_found = notFound;
      if (d.nonce !== undefined) chunk.nonce = d.nonce;
      this.sendDispatch(session, 'GUILD_MEMBERS_CHUNK', chunk);
    }
  }

  private sendDispatch(session: Session, t: string, d: unknown): void {
    if (!session.conn) return;
    session.seq += 1;
    this.sendRaw(session.conn, { op: 0, t, s: session.seq, d });
  }

  private sendRaw(conn: Conn, payload: ServerPayload): void {
    // Always a text frame: discord.js treats binary frames as zlib-compressed.
    if (conn.ws.readyState === WebSocket.OPEN) conn.ws.send(JSON.stringify(payload), { binary: false });
  }
}
