import { describe, expect, it } from 'vitest';
import { mapGithub } from '../../src/domain/formats/github.js';
import { githubSignature, parseGithubBody, verifyGithubSignature } from '../../src/domain/formats/github-body.js';
import type { AlertCommand, JobCommand, RunCommand } from '../../src/domain/formats/command.js';
import { AppError } from '../../src/domain/errors.js';
import { expectWebhookValid, fixture } from './fixture.js';

const gh = (event: string, name: string) => mapGithub(event, fixture('github', name));

describe('GitHub events', () => {
  it('ping stores nothing', () => {
    expect(gh('ping', 'ping')).toEqual({ kind: 'ping' });
  });

  it('workflow_run requested → running run, one alert per run and attempt', () => {
    const c = gh('workflow_run', 'workflow_run.requested') as RunCommand;
    expect(c.kind).toBe('run');
    expect(c.runId).toBe('github:Codertocat/Hello-World:30433642:1');
    expect(c.payload).toMatchObject({
      title: 'Codertocat/Hello-World · Build #562',
      level: 'info',
      linkUrl: 'https://github.com/Codertocat/Hello-World/actions/runs/30433642',
      linkText: 'View run',
      message: 'Update README.md',
      actor: { name: 'Codertocat', id: '21031067', avatarUrl: 'https://avatars1.githubusercontent.com/u/21031067?v=4', url: 'https://github.com/Codertocat' },
      workflow: { runId: c.runId, state: 'running', steps: [] },
    });
    expectWebhookValid(c.payload);
  });

  it.each([
    ['success', 'passed', undefined],
    ['neutral', 'passed', undefined],
    ['skipped', 'passed', undefined],
    ['failure', 'failed', 'failure'],
    ['cancelled', 'failed', 'cancelled'],
    ['timed_out', 'failed', 'timed_out'],
  ])('workflow_run completed with %s → %s', (conclusion, state, error) => {
    const body = fixture('github', 'workflow_run.completed') as { workflow_run: { conclusion: string } };
    body.workflow_run.conclusion = conclusion;
    const c = mapGithub('workflow_run', body) as RunCommand;
    expect(c.payload.workflow.state).toBe(state);
    expect(c.payload.workflow.error).toBe(error);
    expect(c.payload.level).toBe(state === 'passed' ? 'success' : 'error');
  });

  it('a re-run is a new attempt and a new run id', () => {
    const body = fixture('github', 'workflow_run.requested') as { workflow_run: { run_attempt: number } };
    body.workflow_run.run_attempt = 2;
    const c = mapGithub('workflow_run', body) as RunCommand;
    expect(c.runId).toBe('github:Codertocat/Hello-World:30433642:2');
    expect(c.payload.title).toBe('Codertocat/Hello-World · Build #562 (attempt 2)');
  });

  it('workflow_job → one step keyed by job name with state and seconds, for the same run id', () => {
    const c = gh('workflow_job', 'workflow_job.completed') as JobCommand;
    expect(c.kind).toBe('job');
    expect(c.runId).toBe('github:Codertocat/Hello-World:30433642:1');
    expect(c.step).toEqual({ name: 'test (ubuntu-latest)', state: 'done', seconds: 22 });
    expect(c.runPayload.title).toBe('Codertocat/Hello-World · Build');
    expect(c.runPayload.linkUrl).toBe('https://github.com/Codertocat/Hello-World/actions/runs/30433642');
    expectWebhookValid(c.runPayload);
  });

  it.each([
    ['queued', 'queued', null, { state: 'pending' }],
    ['in_progress', 'in_progress', null, { state: 'running' }],
    ['completed', 'completed', 'failure', { state: 'failed', info: 'failure', seconds: 22 }],
    ['completed', 'completed', 'skipped', { state: 'skipped', seconds: 22 }],
  ])('workflow_job %s (%s, %s) → %o', (action, status, conclusion, step) => {
    const body = fixture('github', 'workflow_job.completed') as { action: string; workflow_job: Record<string, unknown> };
    body.action = action;
    body.workflow_job.status = status;
    body.workflow_job.conclusion = conclusion;
    expect((mapGithub('workflow_job', body) as JobCommand).step).toEqual({ name: 'test (ubuntu-latest)', ...step });
  });

  it('push: commits listed, compare link, branch and pusher', () => {
    const c = gh('push', 'push') as AlertCommand;
    expect(c.payload).toMatchObject({
      title: 'Codertocat/Hello-World · 2 commits pushed to main',
      message: '• a10867b Update README.md — Codertocat\n• b20867b Fix typo — Monalisa',
      fields: [
        { label: 'Branch', value: 'main', inline: true },
        { label: 'Pusher', value: 'Codertocat', inline: true },
      ],
      linkUrl: 'https://github.com/Codertocat/Hello-World/compare/6113728f27ae...000000000000',
      linkText: 'Compare',
      source: 'GitHub',
    });
    expectWebhookValid(c.payload);
  });

  it('push of a deleted branch and of a tag', () => {
    const deleted = { ...fixture('github', 'push'), deleted: true, commits: [], ref: 'refs/heads/old' };
    expect((mapGithub('push', deleted) as AlertCommand).payload.title).toBe('Codertocat/Hello-World · branch old deleted');
    const tag = { ...fixture('github', 'push'), ref: 'refs/tags/v1.0', commits: [] };
    expect((mapGithub('push', tag) as AlertCommand).payload.title).toBe('Codertocat/Hello-World · tag v1.0 pushed');
  });

  it('pull_request opened, merged, closed, reopened', () => {
    const opened = gh('pull_request', 'pull_request.opened') as AlertCommand;
    expect(opened.payload).toMatchObject({
      title: 'Codertocat/Hello-World · PR #2 opened: Update the README with new information.',
      level: 'info',
      message: 'This is a pretty simple change that we need to pull into main.',
      linkUrl: 'https://github.com/Codertocat/Hello-World/pull/2',
    });
    expect(opened.payload.fields).toContainEqual({ label: 'Branch', value: 'changes → main', inline: true });
    expectWebhookValid(opened.payload);
    const merged = gh('pull_request', 'pull_request.merged') as AlertCommand;
    expect(merged.payload).toMatchObject({ title: 'Codertocat/Hello-World · PR #2 merged: Update the README with new information.', level: 'success' });
    expect(merged.payload.fields).toContainEqual({ label: 'Merged by', value: 'monalisa', inline: true });
    const closedBody = fixture('github', 'pull_request.merged') as { pull_request: { merged: boolean } };
    closedBody.pull_request.merged = false;
    expect((mapGithub('pull_request', closedBody) as AlertCommand).payload.title).toMatch(/ · PR #2 closed: /);
    const reopened = { ...fixture('github', 'pull_request.opened'), action: 'reopened' };
    expect((mapGithub('pull_request', reopened) as AlertCommand).payload.title).toMatch(/ · PR #2 reopened: /);
  });

  it('issues opened and closed', () => {
    const c = gh('issues', 'issues.opened') as AlertCommand;
    expect(c.payload).toMatchObject({
      title: 'Codertocat/Hello-World · Issue #1 opened: Spelling error in the README file',
      fields: [
        { label: 'Author', value: 'Codertocat', inline: true },
        { label: 'Labels', value: 'bug', inline: true },
      ],
      linkUrl: 'https://github.com/Codertocat/Hello-World/issues/1',
    });
    const closed = fixture('github', 'issues.opened') as { action: string; issue: Record<string, unknown> };
    closed.action = 'closed';
    closed.issue.state_reason = 'completed';
    expect((mapGithub('issues', closed) as AlertCommand).payload).toMatchObject({ title: 'Codertocat/Hello-World · Issue #1 closed: Spelling error in the README file', level: 'success' });
  });

  it('release published', () => {
    const c = gh('release', 'release.published') as AlertCommand;
    expect(c.payload).toMatchObject({
      title: 'Codertocat/Hello-World · Release 0.0.1 published',
      level: 'success',
      linkUrl: 'https://github.com/Codertocat/Hello-World/releases/tag/0.0.1',
    });
    expectWebhookValid(c.payload);
  });

  it('other events and actions are ignored; a missing event header is refused', () => {
    expect(mapGithub('star', { action: 'created' })).toEqual({ kind: 'ignored', event: 'star' });
    expect(mapGithub('pull_request', { ...fixture('github', 'pull_request.opened'), action: 'synchronize' })).toEqual({
      kind: 'ignored',
      event: 'pull_request',
      action: 'synchronize',
    });
    expect(mapGithub('release', { ...fixture('github', 'release.published'), action: 'created' })).toMatchObject({ kind: 'ignored' });
    expect(mapGithub('__proto__', {})).toEqual({ kind: 'ignored', event: '__proto__' });
    expect(mapGithub('toString', {})).toEqual({ kind: 'ignored', event: 'tostring' });
    expect(() => mapGithub(undefined, {})).toThrow(AppError);
  });

  it('every mapped title starts with the repository', () => {
    for (const [event, name] of [
      ['workflow_run', 'workflow_run.completed'],
      ['push', 'push'],
      ['pull_request', 'pull_request.opened'],
      ['issues', 'issues.opened'],
      ['release', 'release.published'],
    ] as const) {
      const c = gh(event, name) as AlertCommand | RunCommand;
      expect(c.payload.title.startsWith('Codertocat/Hello-World · ')).toBe(true);
    }
  });
});

describe('GitHub body parsing', () => {
  const json = JSON.stringify({ zen: 'hi' });

  it('reads JSON and the form encoding', () => {
    expect(parseGithubBody(json, 'application/json')).toEqual({ zen: 'hi' });
    expect(parseGithubBody(`payload=${encodeURIComponent(json)}`, 'application/x-www-form-urlencoded')).toEqual({ zen: 'hi' });
  });

  it('refuses bad JSON, a form without payload and other types', () => {
    expect(() => parseGithubBody('{', 'application/json')).toThrow(expect.objectContaining({ code: 'malformed-json' }));
    expect(() => parseGithubBody('a=1', 'application/x-www-form-urlencoded')).toThrow(expect.objectContaining({ code: 'invalid-payload' }));
    expect(() => parseGithubBody(json, 'text/plain')).toThrow(expect.objectContaining({ code: 'unsupported-content-type' }));
  });
});

describe('X-Hub-Signature-256', () => {
  const body = '{"zen":"Keep it logically awesome."}';
  const secret = "It's a Secret to Everybody";

  it("matches GitHub's documented test vector", () => {
    // From GitHub's "Validating webhook deliveries" page.
    expect(githubSignature('Hello, World!', secret)).toBe('sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17');
  });

  it('accepts a good signature (any hex case)', () => {
    expect(verifyGithubSignature(body, githubSignature(body, secret), secret)).toEqual({ ok: true });
    expect(verifyGithubSignature(Buffer.from(body), githubSignature(body, secret).toUpperCase().replace('SHA256=', 'sha256='), secret)).toEqual({ ok: true });
  });

  it('refuses a wrong, missing, malformed or wrong-length signature', () => {
    expect(verifyGithubSignature(body, githubSignature(body, 'other'), secret)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyGithubSignature(`${body} `, githubSignature(body, secret), secret)).toEqual({ ok: false, reason: 'mismatch' });
    expect(verifyGithubSignature(body, undefined, secret)).toEqual({ ok: false, reason: 'missing' });
    expect(verifyGithubSignature(body, '', secret)).toEqual({ ok: false, reason: 'missing' });
    expect(verifyGithubSignature(body, githubSignature(body, secret).slice(0, -2), secret)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyGithubSignature(body, `${githubSignature(body, secret)}00`, secret)).toEqual({ ok: false, reason: 'malformed' });
    expect(verifyGithubSignature(body, `sha1=${'a'.repeat(40)}`, secret)).toEqual({ ok: false, reason: 'malformed' });
  });
});
