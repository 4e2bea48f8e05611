/**
 * The fake REST API under /api/v10: bot-token check, request recording, injected failures, and the routes
 * the bot triggers (gateway, users, channels and their messages, guilds and their members).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { FakeDiscord } from './fake-discord.js';
import { errorBody, invalidForm, readBody, required, type RestResult } from './http.js';
import { messageById, visibleMessage } from './messages.js';
import { buildGuild, compareSnowflakes } from './payloads.js';
import type { FakeChannel, FakeGuild, InjectedFailure, MessagePayload, RecordedRequest } from './types.js';

const API_PREFIX = '/api/v10';

/** What the REST API reads and does on the fake's state. */
export type RestHost = Pick<
  FakeDiscord,
  'token' | 'privilegedIntents' | 'gatewayUrl' | 'identifyCount' | 'botUser' | 'users' | 'guilds' | 'channels' | 'sendMessage' | 'community'
>;

/** The part of `POST /channels/:id/messages` the fake reads. */
const CreateMessageBody = z.object({
  content: z.string().optional(),
  message_reference: z.object({ message_id: z.string().optional() }).optional(),
});

type Query = Record<string, string>;

const ok = (body: unknown): RestResult => ({ status: 200, body });

export class FakeRest {
  /** Every request, in order. */
  readonly requests: RecordedRequest[] = [];
  private readonly failures: Array<InjectedFailure & { remaining: number }> = [];

  constructor(private readonly host: RestHost) {}

  injectFailure(failure: InjectedFailure): void {
    this.failures.push({ ...failure, remaining: failure.times ?? 1 });
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    const fullPath = url.pathname;
    const path = fullPath.startsWith(API_PREFIX) ? fullPath.slice(API_PREFIX.length) || '/' : fullPath;
    const query = Object.fromEntries(url.searchParams.entries());
    const raw = await readBody(req);
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = raw.toString('utf8');
      }
    }
    const record: RecordedRequest = { method, path, query, status: 0 };
    if (body !== undefined) record.body = body;
    this.requests.push(record);

    const send = (status: number, payload?: unknown, headers: Record<string, string> = {}) => {
      record.status = status;
      if (payload === undefined || status === 204) {
        // No content-type on an empty body: undici would JSON.parse('') and crash the client.
        res.writeHead(status, headers).end();
      } else {
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(payload));
      }
    };

    if (!fullPath.startsWith(`${API_PREFIX}/`)) return send(404, { message: '404: Not Found', code: 0 });
    if (req.headers.authorization !== `Bot ${this.host.token}`) return send(401, { message: '401: Unauthorized', code: 0 });

    const failure = this.failures.find(
      (f) => f.remaining > 0 && (!f.method || f.method === method) && (typeof f.path === 'string' ? f.path === path : f.path.test(path)),
    );
    if (failure) {
      failure.remaining -= 1;
      const fallback = failure.status === 429 ? { message: 'You are being rate limited.', retry_after: 0.05, global: false } : { message: 'Injected failure', code: 0 };
      return send(failure.status, failure.body ?? fallback, failure.headers);
    }

    let result: RestResult;
    try {
      result = this.route(method, path, query, body);
    } catch (error) {
      result = { status: 500, body: { message: `FakeDiscord: ${error instanceof Error ? error.message : String(error)}`, code: 0 } };
    }
    send(result.status, result.body);
  }

  private route(method: string, path: string, query: Query, body: unknown): RestResult {
    const { host } = this;
    const seg = path.split('/').filter(Boolean);

    if (method === 'GET' && path === '/gateway/bot') {
      return ok({
        url: host.gatewayUrl,
        shards: 1,
        session_start_limit: { total: 1000, remaining: 1000 - host.identifyCount, reset_after: 86_400_000, max_concurrency: 1 },
      });
    }
    if (method === 'GET' && path === '/gateway') return ok({ url: host.gatewayUrl });
    if (method === 'GET' && path === '/users/@me') return ok(host.botUser);

    if (seg[0] === 'users' && seg.length === 2 && method === 'GET') {
      const user = host.users.get(seg[1]!);
      return user ? ok(user) : errorBody(404, 10013, 'Unknown User');
    }
    if (seg[0] === 'channels' && seg[1]) {
      const channel = host.channels.get(seg[1]);
      if (!channel || !host.community.visible(channel)) return errorBody(404, 10003, 'Unknown Channel');
      return this.threadRoute(method, seg, query, channel) ?? this.channelRoute(method, seg, query, body, channel);
    }
    if (seg[0] === 'guilds' && seg[1] && method === 'GET') {
      const guild = host.guilds.get(seg[1]);
      return guild ? this.guildRoute(seg, query, guild) : errorBody(404, 10004, 'Unknown Guild');
    }
    return errorBody(404, 0, '404: Not Found');
  }

  /** Thread lists of a parent channel and a thread's members; undefined when the path is not one of them. */
  private threadRoute(method: string, seg: string[], query: Query, channel: FakeChannel): RestResult | undefined {
    const { community } = this.host;
    const id = channel.payload.id;
    if (method === 'GET' && seg[2] === 'threads' && seg[3] === 'archived' && seg.length === 5) {
      if (seg[4] === 'public') return ok(community.archivedThreads(id, query, false));
      // Listing every private thread needs Manage Threads, which the bot does not ask for.
      if (seg[4] === 'private') return errorBody(403, 50013, 'Missing Permissions');
    }
    if (method === 'GET' && seg.join('/') === `channels/${id}/users/@me/threads/archived/private`) return ok(community.archivedThreads(id, query, true));
    if (seg[2] === 'thread-members' && channel.thread) {
      if (method === 'GET' && seg.length === 3) return ok(community.threadMembers(id));
      if (method === 'PUT' && seg[3] === '@me') return community.join(id), { status: 204 };
    }
    return undefined;
  }

  /** `/channels/:id[/messages[/:mid]]` of a known channel. */
  private channelRoute(method: string, seg: string[], query: Query, body: unknown, channel: FakeChannel): RestResult {
    const canSeeContent = this.host.privilegedIntents.messageContent;
    const botUserId = this.host.botUser.id;
    if (seg.length === 2 && method === 'GET') return ok(channel.payload);
    if (seg[2] === 'messages' && seg.length === 3 && method === 'GET') {
      const page = pageMessages(channel, query);
      if ('error' in page) return page.error;
      return ok(page.messages.map((m) => visibleMessage(m, canSeeContent, botUserId)));
    }
    if (seg[2] === 'messages' && seg.length === 3 && method === 'POST') {
      const b = CreateMessageBody.safeParse(body ?? {});
      if (!b.success) return invalidForm('content', 'Must be a JSON object with a string content');
      const message = this.host.sendMessage({
        channelId: channel.payload.id,
        authorId: botUserId,
        content: b.data.content ?? '',
        replyTo: b.data.message_reference?.message_id,
      });
      return ok(message);
    }
    if (seg[2] === 'messages' && seg.length === 4 && method === 'GET') {
      const message = messageById(channel.messages, seg[3]!);
      return message ? ok(visibleMessage(message, canSeeContent, botUserId)) : errorBody(404, 10008, 'Unknown Message');
    }
    return errorBody(404, 0, '404: Not Found');
  }

  /** `GET /guilds/:id[/channels|/roles|/members[/:uid]]` of a known guild. */
  private guildRoute(seg: string[], query: Query, guild: FakeGuild): RestResult {
    if (seg.length === 2) {
      const g = buildGuild({ id: guild.id, name: guild.name, owner_id: guild.owner_id, roles: guild.roles });
      if (query.with_counts === 'true') {
        g.approximate_member_count = guild.members.size;
        g.approximate_presence_count = 0;
      }
      return ok(g);
    }
    if (seg[2] === 'threads' && seg[3] === 'active' && seg.length === 4) {
      const threads = this.host.community.activeThreads(guild.id);
      const bot = this.host.botUser.id;
      const members = threads.filter((t) => this.host.channels.get(t.id)?.thread?.members.has(bot)).map((t) => ({ id: t.id, user_id: bot, join_timestamp: new Date().toISOString(), flags: 0 }));
      return ok({ threads, members });
    }
    if (seg[2] === 'channels' && seg.length === 3) return ok(guild.channelIds.map((id) => required(this.host.channels, id, 'channel').payload));
    if (seg[2] === 'roles' && seg.length === 3) return ok(guild.roles);
    if (seg[2] === 'members' && seg.length === 4) {
      const member = guild.members.get(seg[3]!);
      return member ? ok(member) : errorBody(404, 10007, 'Unknown Member');
    }
    if (seg[2] === 'members' && seg.length === 3) {
      if (!this.host.privilegedIntents.guildMembers) return errorBody(403, 50001, 'Missing Access');
      const limit = query.limit === undefined ? 1 : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) return invalidForm('limit', 'int value should be between 1 and 1000');
      const after = query.after ?? '0';
      const members = [...guild.members.values()]
        .filter((m) => compareSnowflakes(m.user.id, after) > 0)
        .sort((a, b) => compareSnowflakes(a.user.id, b.user.id))
        .slice(0, limit);
      return ok(members);
    }
    return errorBody(404, 0, '404: Not Found');
  }
}

/** Discord's paging: newest first; `after` yields the `limit` messages right after the anchor. */
function pageMessages(channel: FakeChannel, query: Query): { messages: MessagePayload[] } | { error: RestResult } {
  const limit = query.limit === undefined ? 50 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) return { error: invalidForm('limit', 'int value should be between 1 and 100') };
  const anchors = ['around', 'before', 'after'].filter((k) => query[k] !== undefined);
  if (anchors.length > 1) return { error: invalidForm(anchors[1]!, 'only one of around, before, after') };
  for (const k of anchors) {
    if (!/^\d{1,20}$/.test(query[k]!)) return { error: invalidForm(k, 'Value "' + query[k] + '" is not snowflake.') };
  }
  const asc = channel.messages; // oldest first (ids are increasing)
  let picked: MessagePayload[];
  if (query.after !== undefined) {
    picked = asc.filter((m) => compareSnowflakes(m.id, query.after!) > 0).slice(0, limit);
  } else if (query.before !== undefined) {
    const older = asc.filter((m) => compareSnowflakes(m.id, query.before!) < 0);
    picked = older.slice(Math.max(0, older.length - limit));
  } else if (query.around !== undefined) {
    const around = query.around;
    const idx = asc.findIndex((m) => compareSnowflakes(m.id, around) >= 0);
    const center = idx === -1 ? asc.length : idx;
    const start = Math.max(0, center - Math.floor(limit / 2));
    picked = asc.slice(start, start + limit);
  } else {
    picked = asc.slice(Math.max(0, asc.length - limit));
  }
  return { messages: [...picked].reverse() };
}
