import { describe, expect, it } from 'vitest';
import { runAdmin } from '../../src/cli/admin.js';
import { githubSignature } from '../../src/domain/formats/github-body.js';
import { eventually } from '../helpers/poll.js';
import { fixture, servedHarness } from './fixture.js';

/** `channel set-signing-secret` against the running service's data directory, checked through GitHub's path over real HTTP. */
const serve = servedHarness();

const SECRET = 'a-github-webhook-secret-0123';
/** The CLI on the service's engine: its data directory, and its PostgreSQL database when it runs on one. */
const adminEnv = (h: { dir: string; config: { databaseUrl: string | undefined } }) => ({ DATA_DIR: h.dir, LOG_LEVEL: 'silent', ...(h.config.databaseUrl ? { DATABASE_URL: h.config.databaseUrl } : {}) });

describe('admin CLI: channel set-signing-secret', () => {
  it('sets, answers "set" without printing it back, is enforced on /github, and --clear lifts it', async () => {
    const { h, server, seed } = await serve();
    const admin = (...argv: string[]) => runAdmin(argv, adminEnv(h));
    const body = JSON.stringify(fixture('github', 'issues.opened'));
    const deliver = (headers: Record<string, string> = {}) =>
      fetch(`${server.url}/api/webhook/${seed.deploys.webhookToken}/github`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'issues', ...headers }, body });

    expect((await deliver()).status).toBe(200);
    const set = await admin('channel', 'set-signing-secret', '--channel', 'deploys', '--secret', SECRET);
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toEqual({ id: seed.deploys.id, signingSecret: 'set' });
    expect(set.stdout + set.stderr).not.toContain(SECRET);

    // On PostgreSQL the node drops its cached channel when the CLI's commit notification arrives (milliseconds later).
    const unsigned = await eventually(async () => { const r = await deliver(); return r.status === 401 ? r : undefined; }, 'the secret enforced');
    expect(unsigned.status).toBe(401);
    expect(((await unsigned.json()) as { detail: string }).detail).toMatch(/X-Hub-Signature-256 header is missing/);
    expect((await deliver({ 'x-hub-signature-256': githubSignature(body, 'another-secret-of-16+') })).status).toBe(401);
    expect((await deliver({ 'x-hub-signature-256': githubSignature(body, SECRET) })).status).toBe(200);

    const cleared = await admin('channel', 'set-signing-secret', '--channel', seed.deploys.id, '--clear');
    expect(cleared.code).toBe(0);
    expect(JSON.parse(cleared.stdout)).toEqual({ id: seed.deploys.id, signingSecret: 'cleared' });
    expect(await eventually(async () => (await deliver()).status === 200, 'the cleared secret lifted')).toBe(true);
  });

  it('refuses a short secret, both flags, neither flag (exit 2) and an unknown channel (exit 1); nothing is set', async () => {
    const { h } = await serve();
    const admin = (...argv: string[]) => runAdmin(argv, adminEnv(h));
    for (const [code, argv] of [
      [2, ['--channel', 'deploys', '--secret', 'short']],
      [2, ['--channel', 'deploys', '--secret', SECRET, '--clear']],
      [2, ['--channel', 'deploys']],
      [1, ['--channel', 'no-such-channel', '--secret', SECRET]],
    ] as const) {
      const r = await admin('channel', 'set-signing-secret', ...argv);
      expect({ argv, code: r.code, stdout: r.stdout }).toEqual({ argv, code, stdout: '' });
      expect(r.stderr).not.toBe('');
      expect(r.stderr).not.toContain(SECRET);
    }
    expect(await h.query('SELECT count(*) AS n FROM channels WHERE signing_secret IS NOT NULL')).toEqual([{ n: 0 }]);
  });
});
