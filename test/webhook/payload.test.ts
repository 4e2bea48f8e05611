import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMOJI_MAX_CHARS, EMOJI_MAX_SHORTCODE_CHARS } from '../../src/domain/webhook/emoji.js';
import { AUTH_MESSAGES, PROBLEM_TYPES } from '../../src/http/problems.js';
import { accepted, bodyOf, type ProblemBody } from '../helpers/bodies.js';
import { startHarness, type Harness, listen, postAlert, rawRequest, seedWorkspace } from '../helpers/harness.js';

let h: Harness;
let seeded: Awaited<ReturnType<typeof seedWorkspace>>;

/**
 * One service per describe block (a fresh database costs a second or two on PostgreSQL): the
 * tests post to it in turn, so "nothing stored" is "no more alerts than before the request".
 * A block whose test changes the channel or the schema has a service of its own.
 */
function serviceForBlock() {
  let outer: [Harness, typeof seeded] | undefined;
  beforeAll(async () => {
    if (h) outer = [h, seeded];
    h = await startHarness();
    seeded = await seedWorkspace(h.services);
  });
  afterAll(async () => {
    await h?.close();
    // A nested block's service is closed: the enclosing block's tests use theirs again.
    if (outer) [h, seeded] = outer;
  });
}

async function setup() {
  return seeded;
}

const alertCount = () => h.count('alerts');

async function readBack(token: string, alertId: string) {
  const res = await h.call('GET', `/api/alerts/${alertId}`, { token });
  expect(res.status).toBe(200);
  return bodyOf.alert(res);
}

describe('webhook: success', () => {
  serviceForBlock();
  it('answers 201 with the alert id and destination', async () => {
    const seed = await setup();
    const { res, body } = await postAlert(h, seed.general.webhookToken, { title: 'Build passed' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(body).toEqual({
      success: true,
      alertId: expect.stringMatching(/^alt_[0-9A-Z]{26}$/),
      destination: {
        workspace: { id: seed.ws.id, name: 'Acme' },
        channel: { id: seed.general.id, name: 'General', slug: 'general' },
      },
    });
    const a = await readBack(seed.ownerToken, accepted(body).alertId);
    expect(a).toMatchObject({ title: 'Build passed', level: 'INFO', emoji: null, message: null, fields: [], linkUrl: null, linkText: null, actor: null, workflow: null, attachments: [] });
  });

  it('keeps every field, returns values as strings, ignores unknown keys, keeps metadata out of the alert', async () => {
    const seed = await setup();
    const { res, body } = await postAlert(h, seed.general.webhookToken, {
      title: 'New signup',
      level: 'SUCCESS',
      message: 'A new team joined',
      fields: [
        { label: 'plan', value: 'pro', inline: true },
        { name: 'seats', value: 12 },
        { label: 'trial', value: false },
      ],
      linkUrl: 'https://app.example.com/teams/42',
      linkText: 'Open team',
      source: 'billing-service',
      metadata: { teamId: 42, tags: ['a', 'b'] },
      somethingElse: { ignored: true },
    });
    expect(res.status).toBe(201);
    const a = await readBack(seed.ownerToken, accepted(body).alertId);
    expect(a).toMatchObject({
      level: 'SUCCESS',
      message: 'A new team joined',
      fields: [
        { label: 'plan', value: 'pro', inline: true },
        { label: 'seats', value: '12', inline: false },
        { label: 'trial', value: 'false', inline: false },
      ],
      linkUrl: 'https://app.example.com/teams/42',
      linkText: 'Open team',
      source: 'billing-service',
    });
    expect(a).not.toHaveProperty('metadata');
    expect(a).not.toHaveProperty('somethingElse');
    const [stored] = await h.query<{ m: string }>('SELECT metadata_json AS m FROM alerts WHERE id = ?', [accepted(body).alertId]);
    expect(JSON.parse(stored!.m)).toEqual({ teamId: 42, tags: ['a', 'b'] });
  });

  it.each([
    ['🔥', '🔥'],
    ['rocket', '🚀'],
    [':rocket:', '🚀'],
    [':megaphone:', '📣'],
    [':hourglass:', '⏳'],
    ['Tada', '🎉'],
    ['unknown', null], // an unknown name within the limit is dropped
    ['abcdefghij', null], // exactly 10 characters
    [':unknown:', null],
    [':rotating_light:', '🚨'], // the common GitHub / Slack set, whatever its length
    [':White_Check_Mark:', '✅'],
    [':large_green_circle:', '🟢'], // Slack's name (iamcal)
    [':+1:', '👍'],
    [':chart:', '📈'], // the spec's names win over the data package (gemoji's chart is 💹)
    [':phone:', '📞'], // (gemoji's phone is ☎️)
    [':thumbsup::skin-tone-3:', '👍🏼'], // Slack's skin tone suffix
    [':rocket::skin-tone-3:', '🚀'], // a tone on a character that takes none is left off
    [`:${'a'.repeat(EMOJI_MAX_SHORTCODE_CHARS - 2)}:`, null], // the longest shortcode taken; unknown: dropped
    ['  rocket\n', '🚀'],
    [':rocket', '🚀'],
    ['🇫🇷', '🇫🇷'],
    ['🔥'.repeat(10), '🔥'.repeat(10)], // exactly the 10-character limit (counted in characters, not UTF-16 units)
  ])('translates emoji %s', async (input, expected) => {
    const seed = await setup();
    const { res, body } = await postAlert(h, seed.general.webhookToken, { title: 't', emoji: input });
    expect(res.status).toBe(201);
    expect((await readBack(seed.ownerToken, accepted(body).alertId)).emoji).toBe(expected);
  });

  it('accepts an actor as an object, a string, or under the name user, and derives from an e-mail', async () => {
    const seed = await setup();
    const post = async (payload: object) => readBack(seed.ownerToken, accepted((await postAlert(h, seed.general.webhookToken, { title: 't', ...payload })).body).alertId);
    expect((await post({ actor: { email: 'jane.doe@acme.com' } })).actor).toEqual({ email: 'jane.doe@acme.com', name: 'Jane Doe', initials: 'JD', company: 'Acme' });
    expect((await post({ user: 'john.smith+test@gmail.com' })).actor).toEqual({ email: 'john.smith+test@gmail.com', name: 'John Smith', initials: 'JS' });
    expect((await post({ actor: 'deploy-bot' })).actor).toEqual({ name: 'deploy-bot', initials: 'D' });
    expect((await post({ actor: { name: 'Ada Lovelace', email: 'ada@analytical-engines.co.uk', plan: 'enterprise', id: 7 } })).actor).toEqual({
      name: 'Ada Lovelace',
      email: 'ada@analytical-engines.co.uk',
      plan: 'enterprise',
      id: '7',
      company: 'Analytical Engines',
      initials: 'AL',
    });
  });
});

const send = (token: string, payload: unknown) => h.call('POST', `/api/webhook/${token}`, { json: payload });

describe('webhook: errors', () => {
  serviceForBlock();
  const checkedProblem = <P extends ProblemBody>(read: (res: Response) => Promise<P>) => async (res: Response, status: number, name: string) => {
    expect(res.status).toBe(status);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    const body = await read(res);
    expect(body.type).toBe(`http://alertbridge.test/problems/${name}`);
    expect(body.status).toBe(status);
    expect(body.error).toBe(body.title);
    // Senders print error bodies into CI logs: the webhook token is never echoed.
    expect(JSON.stringify(body)).not.toContain('whk_');
    expect(body.instance).toBe('/api/webhook/****');
    return body;
  };
  const expectProblem = checkedProblem(bodyOf.problem);
  /** A schema validation 400: its `details` in the spec's shape. */
  const expectInvalid = async (res: Response) => checkedProblem(bodyOf.invalid)(res, 400, 'invalid-payload');

  it('400 for an empty title, with exactly the spec keys in details', async () => {
    const seed = await setup();
    const before = await alertCount();
    const res = await send(seed.general.webhookToken, { title: '' });
    const body = await expectInvalid(res);
    expect(body.title).toBe('invalid payload');
    expect(body.details).toHaveLength(1);
    expect(Object.keys(body.details[0]!).sort()).toEqual(['code', 'exact', 'inclusive', 'message', 'minimum', 'path', 'type']);
    expect(body.details[0]).toMatchObject({ code: 'too_small', minimum: 1, type: 'string', inclusive: true, exact: false, path: ['title'] });
    expect(await alertCount()).toBe(before);
  });

  it.each([
    ['missing title', {}, ['title']],
    ['title too long', { title: 'x'.repeat(201) }, ['title']],
    ['unknown level', { title: 't', level: 'critical' }, ['level']],
    ['message too long', { title: 't', message: 'x'.repeat(5001) }, ['message']],
    ['linkUrl too long', { title: 't', linkUrl: 'https://e.com/' + 'x'.repeat(2000) }, ['linkUrl']],
    ['linkUrl not http', { title: 't', linkUrl: 'javascript:alert(1)' }, ['linkUrl']],
    ['linkText too long', { title: 't', linkUrl: 'https://e.com', linkText: 'x'.repeat(101) }, ['linkText']],
    ['raw emoji too long (11 emoji)', { title: 't', emoji: '🔥'.repeat(11) }, ['emoji']],
    ['emoji mixed with text', { title: 't', emoji: '🚀 deploy' }, ['emoji']],
    ['a huge emoji string', { title: 't', emoji: '🔥'.repeat(1_000_000) }, ['emoji']],
    ['an unknown name over 10 characters', { title: 't', emoji: 'abcdefghijk' }, ['emoji']],
    ['a common shortcode name over 10 characters without its colons', { title: 't', emoji: 'rotating_light' }, ['emoji']],
    ['a shortcode longer than any emoji name', { title: 't', emoji: `:${'a'.repeat(EMOJI_MAX_SHORTCODE_CHARS - 1)}:` }, ['emoji']],
    ['a blank title', { title: '   ' }, ['title']],
    ['an empty field label', { title: 't', fields: [{ label: '', value: 'v' }] }, ['fields', 0, 'label']],
    ['an empty actor', { title: 't', actor: '' }, ['actor']],
    ['an empty actor object', { title: 't', actor: {} }, ['actor']],
    ['an actor object of unknown keys only', { title: 't', user: { nickname: 'x' } }, ['user']],
    ['an empty actor name', { title: 't', actor: { name: '' } }, ['actor', 'name']],
    ['an empty actor plan', { title: 't', actor: { email: 'a@b.co', plan: '' } }, ['actor', 'plan']],
    ['field label too long', { title: 't', fields: [{ label: 'x'.repeat(101), value: 'v' }] }, ['fields', 0, 'label']],
    ['field value too long', { title: 't', fields: [{ label: 'l', value: 'x'.repeat(1001) }] }, ['fields', 0, 'value']],
    ['field without label', { title: 't', fields: [{ value: 'v' }] }, ['fields', 0, 'label']],
    ['field value object', { title: 't', fields: [{ label: 'l', value: { a: 1 } }] }, ['fields', 0, 'value']],
    ['too many fields', { title: 't', fields: Array.from({ length: 26 }, (_, i) => ({ label: `f${i}`, value: 'v' })) }, ['fields']],
    ['metadata not an object', { title: 't', metadata: [1, 2] }, ['metadata']],
    ['metadata too big', { title: 't', metadata: { blob: 'x'.repeat(17000) } }, ['metadata']],
    ['actor e-mail invalid', { title: 't', actor: { email: 'nope' } }, ['actor', 'email']],
    ['workflow state unknown', { title: 't', workflow: { runId: 'r', state: 'done', steps: [] } }, ['workflow', 'state']],
    ['workflow step state unknown', { title: 't', workflow: { runId: 'r', state: 'running', steps: [{ name: 's', state: 'ok' }] } }, ['workflow', 'steps', 0, 'state']],
    ['workflow without steps', { title: 't', workflow: { runId: 'r', state: 'running' } }, ['workflow', 'steps']],
  ])('400 for %s', async (_name, payload, path) => {
    const seed = await setup();
    const before = await alertCount();
    const res = await send(seed.general.webhookToken, payload);
    const body = await expectInvalid(res);
    expect(body.error).toBe('invalid payload');
    expect(body.details.map((d) => d.path)).toContainEqual(path);
    for (const d of body.details) expect(typeof d.message).toBe('string');
    expect(await alertCount()).toBe(before);
  });

  it('an issue inside one option of a choice (actor string or object, field value string or number) names that option\'s rule, not "Invalid input"', async () => {
    const seed = await setup();
    const body = await expectInvalid(await send(seed.general.webhookToken, { title: 't', actor: '', fields: [{ label: 'l', value: 'x'.repeat(1001) }] }));
    expect(body.details).toEqual([
      { code: 'too_big', maximum: 1000, type: 'string', inclusive: true, exact: false, message: 'value must be at most 1000 characters', path: ['fields', 0, 'value'] },
      { code: 'too_small', minimum: 1, type: 'string', inclusive: true, exact: false, message: 'actor must not be empty', path: ['actor'] },
    ]);
  });

  it('lists every issue at once', async () => {
    const seed = await setup();
    const res = await send(seed.general.webhookToken, { title: '', level: 'nope', message: 5 });
    const body = await expectInvalid(res);
    expect(body.details.map((d) => d.path[0]).sort()).toEqual(['level', 'message', 'title']);
  });

  it('refuses an unknown emoji name over 10 characters like any other over-long field', async () => {
    const seed = await setup();
    const before = await alertCount();
    const body = await expectInvalid(await send(seed.general.webhookToken, { title: 't', emoji: 'abcdefghijk' }));
    expect(body.details).toEqual([
      {
        code: 'too_big',
        maximum: EMOJI_MAX_CHARS,
        type: 'string',
        inclusive: true,
        exact: false,
        message: `emoji must be at most ${EMOJI_MAX_CHARS} characters (an emoji, a name such as rocket, or :rocket:)`,
        path: ['emoji'],
      },
    ]);
    // The same shape as the spec's other length rules, e.g. the title's.
    const title = await expectInvalid(await send(seed.general.webhookToken, { title: 'x'.repeat(201) }));
    expect(Object.keys(title.details[0]!).sort()).toEqual(Object.keys(body.details[0]!).sort());
    expect(await alertCount()).toBe(before);
  });

  it('never rejects a recognised shortcode for its length', async () => {
    const seed = await setup();
    expect((await send(seed.general.webhookToken, { title: 't', emoji: ':megaphone:' })).status).toBe(201);
  });

  it('400 problem for malformed JSON, 415 for a wrong content type, 413 for an over-large body', async () => {
    const seed = await setup();
    const before = await alertCount();
    const url = `/api/webhook/${seed.general.webhookToken}`;
    const bad = await h.call('POST', url, { body: '{"title": "x",', headers: { 'content-type': 'application/json' } });
    const badBody = await expectProblem(bad, 400, 'malformed-json');
    expect(badBody.detail).toMatch(/JSON/);
    await expectProblem(await h.call('POST', url, { body: '', headers: { 'content-type': 'application/json' } }), 400, 'malformed-json');
    await expectProblem(await h.call('POST', url, { body: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported-content-type');
    await expectProblem(await h.call('POST', url, { body: '{"title":"x"}' }), 415, 'unsupported-content-type');
    // Streamed without a Content-Length: cut off once past 16 MiB.
    const huge = JSON.stringify({ title: 't', message: 'x'.repeat(17 * 1024 * 1024) });
    await expectProblem(await h.call('POST', url, { body: huge, headers: { 'content-type': 'application/json' } }), 413, 'payload-too-large');
    // Declared by curl and every other client: refused from the header, before any byte is read.
    const server = await listen(h.app.fetch);
    try {
      const declared = await rawRequest(server.url, 'POST', url, { 'content-type': 'application/json', 'content-length': String(16 * 1024 * 1024 + 1) }, '{"title":"t"}');
      expect(declared.status).toBe(413);
      expect(JSON.parse(declared.body)).toMatchObject({ type: 'http://alertbridge.test/problems/payload-too-large', detail: 'body is 16777217 bytes; the limit is 16777216 bytes' });
    } finally {
      await server.close();
    }
    // JSON that is not an object.
    await expectProblem(await h.call('POST', url, { body: '[1,2]', headers: { 'content-type': 'application/json' } }), 400, 'invalid-payload');
    expect(await alertCount()).toBe(before);
  });

  it('accepts a body that starts with a UTF-8 byte order mark (PowerShell 5 writes one), as RFC 8259 allows', async () => {
    const seed = await setup();
    const before = await alertCount();
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"title":"Nightly backup done"}')]);
    const res = await h.call('POST', `/api/webhook/${seed.general.webhookToken}`, { body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    const { alertId } = await bodyOf.accepted(res);
    expect(await alertCount()).toBe(before + 1);
    expect(await h.query('SELECT title FROM alerts WHERE id = ?', [alertId])).toEqual([{ title: 'Nightly backup done' }]);
  });

  it('serves a human page for every problem type', async () => {
    await setup();
    const names = [...Object.keys(PROBLEM_TYPES), ...Object.keys(AUTH_MESSAGES)];
    expect(names.length).toBeGreaterThan(20);
    for (const name of names) {
      const res = await h.call('GET', `/problems/${name}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(await res.text()).toContain(name.includes('_') ? name : PROBLEM_TYPES[name as keyof typeof PROBLEM_TYPES].title);
    }
    expect((await h.call('GET', '/problems/not-a-problem')).status).toBe(404);
    for (const name of ['constructor', '__proto__', 'toString']) expect((await h.call('GET', `/problems/${name}`)).status).toBe(404);
  });


  // The rotation leaves the block's token unknown, the dropped table breaks every write: a service of their own.
  describe('after rotation', () => {
    serviceForBlock();
    it('404 problem for an unknown token, also after rotation', async () => {
      const seed = await setup();
      const res = await send('whk_nope', { title: 't' });
      const body = await expectProblem(res, 404, 'unknown-token');
      expect(body.title).toBe('invalid webhook token');
      expect(body.error).toBe('invalid webhook token');
      expect((await send(seed.general.webhookToken, { title: 'before rotation' })).status).toBe(201); // now cached
      const rotated = await h.services.accounts.rotateWebhook(seed.general.id);
      await expectProblem(await send(seed.general.webhookToken, { title: 't' }), 404, 'unknown-token');
      expect((await send(rotated.webhookToken, { title: 't' })).status).toBe(201);
    });
  });

  describe('a broken database', () => {
    serviceForBlock();
    it('500 is a problem document that leaks nothing internal', async () => {
      const seed = await setup();
      expect(await h.exec('DROP TABLE usage_counters')).toBe(0);
      const res = await send(seed.general.webhookToken, { title: 't' });
      const body = await res.json();
      expect(res.status).toBe(500);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(body).toEqual({
        type: 'http://alertbridge.test/problems/internal',
        title: 'internal server error',
        status: 500,
        error: 'internal server error',
        instance: '/api/webhook/****',
        requestId: res.headers.get('x-request-id'),
      });
      expect(await alertCount()).toBe(0);
    });
  });
});

describe('webhook: channel changes take effect at once', () => {
  serviceForBlock();
  it('a channel connected to Discord after a webhook refuses the next one (409), and accepts again once disconnected', async () => {
    const seed = await setup();
    expect((await send(seed.general.webhookToken, { title: 'before' })).status).toBe(201);
    const links = h.services.discordLinks;
    await links.connect(seed.general.id, '1329057501282304000');
    const refused = await send(seed.general.webhookToken, { title: 'during' });
    expect(refused.status).toBe(409);
    expect((await bodyOf.problem(refused)).type).toBe('http://alertbridge.test/problems/channel-is-chat-connected');
    await links.disconnect(seed.general.id);
    expect((await send(seed.general.webhookToken, { title: 'after' })).status).toBe(201);
  });
});
