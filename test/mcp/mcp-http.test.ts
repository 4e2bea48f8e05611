import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accepted } from '../helpers/bodies.js';
import { startHarness, postAlert, seedWorkspace, type Harness } from '../helpers/harness.js';
import { eventually } from '../helpers/poll.js';
import { INITIALIZE, MCP_HEADERS, TOOL_NAMES, callTool, httpClient, problemOf } from './helpers.js';

/**
 * POST /mcp over real HTTP on testEngine(), driven by the SDK's own client (Streamable HTTP): every
 * tool answers what its read-API route answers, with the same visibility, 401 body and refusals.
 */

let h: Harness;
let seed: Awaited<ReturnType<typeof seedWorkspace>>;
let owner: Client;
let member: Client;
let readOnlyToken: string;
const ids: Record<string, string> = {};

const api = async (path: string, token = seed.ownerToken) => {
  const res = await h.call('GET', path, { token });
  return { status: res.status, body: (await res.json()) as unknown };
};
const post = async (webhookToken: string, payload: object) => accepted((await postAlert(h, webhookToken, payload)).body).alertId;

beforeAll(async () => {
  h = await startHarness({ serve: true });
  seed = await seedWorkspace(h.services);
  ids.deployFailed = await post(seed.general.webhookToken, { title: 'Deploy checkout failed', level: 'error', message: 'payment step timed out' });
  ids.deployOk = await post(seed.general.webhookToken, { title: 'Deploy checkout passed', level: 'success' });
  ids.note = await post(seed.general.webhookToken, { title: 'Weekly note', level: 'info', fields: [{ label: 'team', value: 'growth' }] });
  ids.secret = await post(seed.secret.webhookToken, { title: 'Intrusion checkout', level: 'error' });
  readOnlyToken = (await h.services.accounts.createToken(seed.ws.id, seed.member.id, 'wallboard', { readOnly: true })).token;
  owner = await httpClient(h.base, seed.ownerToken);
  member = await httpClient(h.base, seed.memberToken);
});

afterAll(async () => {
  await owner?.close();
  await member?.close();
  await h?.close();
});

describe('MCP over Streamable HTTP', () => {
  it('initializes and lists the tools, each with a JSON schema, a description and its annotations', async () => {
    expect(owner.getServerVersion()?.name).toBe('alertbridge');
    expect(owner.getServerCapabilities()?.tools).toBeDefined();
    const { tools } = await owner.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
    for (const t of tools) {
      expect(t.description?.length, t.name).toBeGreaterThan(40);
      expect(t.inputSchema.type).toBe('object');
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.list_alerts!.inputSchema.required).toEqual(['channel']);
    expect(Object.keys(byName.list_alerts!.inputSchema.properties ?? {}).sort()).toEqual(['channel', 'cursor', 'level', 'limit', 'order', 'status', 'thread']);
    expect(Object.keys(byName.search_alerts!.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['query', 'channel', 'level', 'limit', 'thread', 'tag']));
    expect(byName.set_status!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(byName.set_status!.inputSchema.properties?.action).toMatchObject({ enum: ['acknowledge', 'resolve', 'reopen'] });
    for (const name of ['list_channels', 'list_alerts', 'search_alerts', 'get_alert']) expect(byName[name]!.annotations?.readOnlyHint, name).toBe(true);
  });

  it('list_channels: the read API\'s channels, without their webhook tokens', async () => {
    const r = await callTool(owner, 'list_channels');
    expect(r.isError).toBe(false);
    const fromApi = (await api('/api/channels')).body as Record<string, unknown>[];
    expect(r.json).toEqual(fromApi.map(({ webhookToken: _w, ...rest }) => rest));
    expect(r.text).not.toContain(seed.general.webhookToken);
    expect((r.json as { slug: string }[]).map((c) => c.slug)).toContain('security');
    const forMember = await callTool(member, 'list_channels');
    expect((forMember.json as { slug: string }[]).map((c) => c.slug)).not.toContain('security');
  });

  it('list_alerts: the same pages as GET /api/channels/{channel}/alerts, with cursor, level and status', async () => {
    const first = await callTool(owner, 'list_alerts', { channel: 'general', limit: 2 });
    expect(first.isError).toBe(false);
    expect(first.json).toEqual((await api('/api/channels/general/alerts?limit=2')).body);
    const page = first.json as { alerts: { id: string }[]; nextCursor: string; hasMore: boolean };
    expect(page.alerts.map((a) => a.id)).toEqual([ids.note, ids.deployOk]);
    expect(page.hasMore).toBe(true);
    const second = await callTool(owner, 'list_alerts', { channel: seed.general.id, limit: 2, cursor: page.nextCursor });
    expect(second.json).toEqual((await api(`/api/channels/general/alerts?limit=2&cursor=${page.nextCursor}`)).body);
    expect((second.json as { alerts: { id: string }[] }).alerts.map((a) => a.id)).toEqual([ids.deployFailed]);
    const errors = await callTool(owner, 'list_alerts', { channel: 'general', level: 'error', status: ['open', 'acknowledged'] });
    expect((errors.json as { alerts: { id: string }[] }).alerts.map((a) => a.id)).toEqual([ids.deployFailed]);
  });

  it('search_alerts: the same page as GET /api/search', async () => {
    await eventually(async () => ((await api('/api/search?q=checkout')).body as { alerts: unknown[] }).alerts.length === 3, 'search indexed');
    const r = await callTool(owner, 'search_alerts', { query: 'checkout' });
    expect(r.isError).toBe(false);
    expect(r.json).toEqual((await api('/api/search?q=checkout')).body);
    const narrowed = await callTool(owner, 'search_alerts', { query: 'deploy*', channel: 'general', level: 'error', limit: 5 });
    expect((narrowed.json as { alerts: { id: string }[] }).alerts.map((a) => a.id)).toEqual([ids.deployFailed]);
    // The member's search never reaches the private channel.
    const forMember = await callTool(member, 'search_alerts', { query: 'checkout' });
    expect((forMember.json as { alerts: { id: string }[] }).alerts.map((a) => a.id)).not.toContain(ids.secret);
  });

  it('get_alert and mark_read: the alert as GET /api/alerts/{id} shows it; read state is the caller\'s own', async () => {
    const got = await callTool(member, 'get_alert', { id: ids.deployFailed });
    expect(got.json).toEqual((await api(`/api/alerts/${ids.deployFailed}`, seed.memberToken)).body);
    expect(got.json).toMatchObject({ isRead: false, channelSlug: seed.general.slug });
    const read = await callTool(member, 'mark_read', { id: ids.deployFailed });
    expect(read.isError).toBe(false);
    expect(read.json).toMatchObject({ id: ids.deployFailed, isRead: true });
    expect((await api(`/api/alerts/${ids.deployFailed}`, seed.memberToken)).body).toMatchObject({ isRead: true });
    expect((await api(`/api/alerts/${ids.deployFailed}`)).body).toMatchObject({ isRead: false });
    const unread = await callTool(member, 'mark_read', { id: ids.deployFailed, read: false });
    expect(unread.json).toMatchObject({ isRead: false });
  });

  it('set_status: acknowledge, resolve and reopen, recorded in the history as the token\'s user', async () => {
    for (const [action, status] of [['acknowledge', 'acknowledged'], ['resolve', 'resolved'], ['reopen', 'open']] as const) {
      const r = await callTool(member, 'set_status', { id: ids.deployOk, action });
      expect(r.isError, r.text).toBe(false);
      expect(r.json).toMatchObject({ id: ids.deployOk, status });
      expect((await api(`/api/alerts/${ids.deployOk}`)).body).toMatchObject({ status });
    }
    const history = (await api(`/api/alerts/${ids.deployOk}/history`)).body as { history: { action: string; actor: { id: string } }[] };
    expect(history.history.map((e) => [e.action, e.actor.id])).toEqual([
      ['acknowledged', seed.member.id],
      ['resolved', seed.member.id],
      ['reopened', seed.member.id],
    ]);
  });

  it('a private channel is invisible to a member: the same not-found as a channel or alert that does not exist', async () => {
    const hidden = await callTool(member, 'list_alerts', { channel: 'security' });
    const missing = await callTool(member, 'list_alerts', { channel: 'no-such-channel' });
    expect(hidden.isError && missing.isError).toBe(true);
    expect(problemOf(hidden.json)).toEqual(problemOf(missing.json));
    expect(problemOf(hidden.json)).toEqual(problemOf((await api('/api/channels/security/alerts', seed.memberToken)).body));
    expect(hidden.json).toMatchObject({ status: 404, type: `${h.base}/problems/not-found` });

    for (const tool of ['get_alert', 'mark_read']) {
      const hiddenAlert = await callTool(member, tool, { id: ids.secret });
      const missingAlert = await callTool(member, tool, { id: 'alt_00000000000000000000000000' });
      expect(hiddenAlert.isError, tool).toBe(true);
      expect(problemOf(hiddenAlert.json)).toEqual(problemOf(missingAlert.json));
      expect(problemOf(hiddenAlert.json)).toEqual(problemOf((await api(`/api/alerts/${ids.secret}`, seed.memberToken)).body));
    }
    const refused = await callTool(member, 'set_status', { id: ids.secret, action: 'resolve' });
    expect(refused.json).toMatchObject({ status: 404 });
    expect((await api(`/api/alerts/${ids.secret}`)).body).toMatchObject({ status: 'open' });
    // The owner, a member of the private channel, sees it.
    expect((await callTool(owner, 'get_alert', { id: ids.secret })).json).toMatchObject({ id: ids.secret, channelSlug: 'security' });
  });

  it('a read-only token reads and marks read, and set_status is a tool error naming the read-only token; nothing changes', async () => {
    const client = await httpClient(h.base, readOnlyToken);
    try {
      expect((await callTool(client, 'get_alert', { id: ids.note })).isError).toBe(false);
      expect((await callTool(client, 'mark_read', { id: ids.note })).json).toMatchObject({ isRead: true });
      const refused = await callTool(client, 'set_status', { id: ids.note, action: 'resolve' });
      expect(refused.isError).toBe(true);
      expect(refused.json).toMatchObject({ status: 403, type: `${h.base}/problems/read-only-token`, title: 'token is read-only' });
      expect((refused.json as { detail: string }).detail).toContain('read-only');
      expect((await api(`/api/alerts/${ids.note}`)).body).toMatchObject({ status: 'open' });
    } finally {
      await client.close();
    }
  });

  it('arguments outside the schema are a tool error, and a refused query is the read API\'s 400 problem', async () => {
    const tooMany = await callTool(owner, 'list_alerts', { channel: 'general', limit: 500 });
    expect(tooMany.isError).toBe(true);
    expect(tooMany.text).toContain('limit');
    const noChannel = await callTool(owner, 'list_alerts', {});
    expect(noChannel.isError).toBe(true);
    const badQuery = await callTool(owner, 'search_alerts', { query: '   ' });
    expect(badQuery.isError).toBe(true);
    expect(badQuery.json).toMatchObject({ status: 400, type: `${h.base}/problems/invalid-query` });
  });

  it('without a token, or with a revoked one: 401 with the read API\'s body, and the SDK client cannot connect', async () => {
    const body = JSON.stringify(INITIALIZE);
    const none = await h.call('POST', '/mcp', { headers: MCP_HEADERS, body });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    const fromApi = await h.call('GET', '/api/channels');
    expect(await none.json()).toEqual(await fromApi.json());
    const wrong = await h.call('POST', '/mcp', { headers: { ...MCP_HEADERS, authorization: `Bearer ${seed.ownerToken.slice(0, -1)}${seed.ownerToken.endsWith('0') ? '1' : '0'}` }, body });
    expect(await wrong.json()).toMatchObject({ error: 'Unauthorized', reason: 'unknown_token' });
    await expect(httpClient(h.base, 'ab_nope')).rejects.toThrow(/Unauthorized.*invalid_token_format/);
  });

  it('GET and DELETE /mcp: 405 with Allow: POST (stateless: no stream, no session)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await h.call(method, '/mcp', { token: seed.ownerToken, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(await res.json()).toMatchObject({ status: 405 });
    }
  });

  it('a POST answers JSON with the rate-limit headers; no session id is set', async () => {
    const res = await h.call('POST', '/mcp', { token: seed.ownerToken, headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('ratelimit-limit')).toBe(String(h.config.rateLimitPerMinute));
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(await res.json()).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'alertbridge' } } });
  });
});

describe('MCP rate limit', () => {
  it('counts each POST against the token\'s read-API limit: over it, the same 429 problem', async () => {
    const limited = await startHarness({ serve: true, env: { RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const s = await seedWorkspace(limited.services);
      const send = () => limited.call('POST', '/mcp', { token: s.ownerToken, headers: MCP_HEADERS, body: JSON.stringify(INITIALIZE) });
      expect((await limited.call('GET', '/api/channels', { token: s.ownerToken })).status).toBe(200);
      expect((await send()).status).toBe(200);
      expect((await send()).status).toBe(200);
      const over = await send();
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await over.json()).toMatchObject({ status: 429, type: `${limited.base}/problems/rate-limited` });
    } finally {
      await limited.close();
    }
  });
});

describe('MCP in the OpenAPI document', () => {
  it('documents POST /mcp with Bearer auth, the 401 body and the 429, and GET/DELETE as 405', async () => {
    const doc = (await (await h.call('GET', '/openapi.json')).json()) as {
      paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }>>;
    };
    const post = doc.paths['/mcp']!.post!;
    expect(post.security).toEqual([{ bearerAuth: [] }]);
    expect(post.responses['401']!.content!['application/json']!.schema.$ref).toBe('#/components/schemas/AuthFailure');
    expect(Object.keys(post.responses)).toEqual(expect.arrayContaining(['200', '202', '400', '401', '406', '413', '415', '429']));
    for (const method of ['get', 'delete']) expect(Object.keys(doc.paths['/mcp']![method]!.responses)).toEqual(['405']);
  });
});
