import { z } from 'zod';
import type { AlertCommand, IngestCommand } from './command.js';
import { finishDraft, type RawDraft } from './draft.js';
import { actorOf, githubBase, GithubRepo, GithubUser, shortSha, splitRef, titled } from './github-common.js';
import { larr, lbool, lnum, lobj, lstr } from './lenient.js';
import { firstLine, plural } from './text.js';

const alert = (event: string, draft: Omit<RawDraft, 'source' | 'metadata'>): AlertCommand => {
  const { payload, attachmentUrls } = finishDraft({ ...githubBase(event), ...draft });
  return { kind: 'alert', payload, attachmentUrls };
};

const field = (label: string, value: string | undefined, inline = true) => (value ? [{ label, value, inline }] : []);

const PushEvent = z.object({
  ref: lstr,
  created: lbool,
  deleted: lbool,
  forced: lbool,
  compare: lstr,
  commits: larr(lobj({ id: lstr, message: lstr, author: lobj({ name: lstr, username: lstr }) })),
  pusher: lobj({ name: lstr }),
  repository: GithubRepo,
  sender: GithubUser,
});

/** push: commits to a branch, a new or deleted branch or tag. */
export function mapPush(raw: unknown): IngestCommand {
  const e = PushEvent.parse(raw);
  const ref = splitRef(e.ref);
  const n = e.commits.length;
  let what: string;
  if (e.deleted) what = `${ref.kind} ${ref.name} deleted`;
  else if (ref.kind === 'tag') what = `tag ${ref.name} pushed`;
  else if (e.created && n === 0) what = `branch ${ref.name} created`;
  else what = `${plural(n, 'commit')} ${e.forced ? 'force-pushed' : 'pushed'} to ${ref.name}`;
  const message = e.commits
    .map((c) => `• ${shortSha(c.id)} ${firstLine(c.message)}${c.author?.name ? ` — ${c.author.name}` : ''}`)
    .join('\n');
  return alert('push', {
    title: titled(e.repository, what),
    level: e.forced || e.deleted ? 'warning' : 'info',
    emoji: 'package',
    message,
    fields: [...field(ref.kind === 'tag' ? 'Tag' : 'Branch', ref.name), ...field('Pusher', e.pusher?.name ?? e.sender?.login)],
    linkUrl: e.deleted ? undefined : e.compare,
    linkText: 'Compare',
    actor: actorOf(e.sender),
  });
}

const PullRequestEvent = z.object({
  action: lstr,
  number: lnum,
  pull_request: lobj({
    number: lnum,
    title: lstr,
    body: lstr,
    html_url: lstr,
    merged: lbool,
    draft: lbool,
    user: GithubUser,
    merged_by: GithubUser,
    head: lobj({ ref: lstr }),
    base: lobj({ ref: lstr }),
    commits: lnum,
    additions: lnum,
    deletions: lnum,
  }),
  repository: GithubRepo,
  sender: GithubUser,
});

/** pull_request: opened, reopened, closed, and merged (GitHub's closed with merged: true). */
export function mapPullRequest(raw: unknown): IngestCommand {
  const e = PullRequestEvent.parse(raw);
  const pr = e.pull_request;
  if (!pr || !['opened', 'reopened', 'closed'].includes(e.action ?? '')) return { kind: 'ignored', event: 'pull_request', action: e.action };
  const merged = e.action === 'closed' && pr.merged === true;
  const verb = merged ? 'merged' : e.action!;
  const num = pr.number ?? e.number;
  const changes =
    pr.additions !== undefined && pr.deletions !== undefined ? `+${pr.additions} −${pr.deletions}${pr.commits !== undefined ? ` in ${plural(pr.commits, 'commit')}` : ''}` : undefined;
  return alert('pull_request', {
    title: titled(e.repository, `PR${num !== undefined ? ` #${num}` : ''} ${verb}: ${pr.title ?? ''}`),
    level: merged ? 'success' : 'info',
    emoji: merged ? 'check' : e.action === 'closed' ? 'cross' : 'eyes',
    // The description is news when a PR opens; on close or merge it was already seen.
    message: e.action === 'opened' || e.action === 'reopened' ? pr.body : undefined,
    fields: [
      ...field('Branch', pr.head?.ref && pr.base?.ref ? `${pr.head.ref} → ${pr.base.ref}` : undefined),
      ...field('Author', pr.user?.login),
      ...(merged ? field('Merged by', pr.merged_by?.login) : []),
      ...field('Changes', changes),
      ...(pr.draft ? field('Draft', 'yes') : []),
    ],
    linkUrl: pr.html_url,
    linkText: 'View pull request',
    actor: actorOf(e.sender),
  });
}

const IssuesEvent = z.object({
  action: lstr,
  issue: lobj({
    number: lnum,
    title: lstr,
    body: lstr,
    html_url: lstr,
    state_reason: lstr,
    user: GithubUser,
    labels: larr(lobj({ name: lstr })),
  }),
  repository: GithubRepo,
  sender: GithubUser,
});

/** issues: opened and closed (completed closes read as success, not-planned ones as info). */
export function mapIssues(raw: unknown): IngestCommand {
  const e = IssuesEvent.parse(raw);
  const issue = e.issue;
  if (!issue || !['opened', 'closed'].includes(e.action ?? '')) return { kind: 'ignored', event: 'issues', action: e.action };
  const labels = issue.labels.map((l) => l.name).filter(Boolean).join(', ');
  return alert('issues', {
    title: titled(e.repository, `Issue${issue.number !== undefined ? ` #${issue.number}` : ''} ${e.action}: ${issue.title ?? ''}`),
    level: e.action === 'closed' && issue.state_reason === 'completed' ? 'success' : 'info',
    emoji: e.action === 'closed' ? 'check' : 'pin',
    message: e.action === 'opened' ? issue.body : undefined,
    fields: [
      ...field('Author', issue.user?.login),
      ...field('Labels', labels || undefined),
      ...(e.action === 'closed' ? field('Reason', issue.state_reason?.replace(/_/g, ' ')) : []),
    ],
    linkUrl: issue.html_url,
    linkText: 'View issue',
    actor: actorOf(e.sender),
  });
}

const ReleaseEvent = z.object({
  action: lstr,
  release: lobj({ tag_name: lstr, name: lstr, body: lstr, html_url: lstr, prerelease: lbool, author: GithubUser }),
  repository: GithubRepo,
  sender: GithubUser,
});

/** release: published (GitHub also sends created/released/prereleased for the same release; one alert is enough). */
export function mapRelease(raw: unknown): IngestCommand {
  const e = ReleaseEvent.parse(raw);
  const r = e.release;
  if (!r || e.action !== 'published') return { kind: 'ignored', event: 'release', action: e.action };
  const name = r.name?.trim() || r.tag_name || 'release';
  return alert('release', {
    title: titled(e.repository, `${r.prerelease ? 'Pre-release' : 'Release'} ${name} published`),
    level: 'success',
    emoji: 'tada',
    message: r.body,
    fields: [...field('Tag', r.tag_name), ...field('Author', r.author?.login)],
    linkUrl: r.html_url,
    linkText: 'View release',
    actor: actorOf(e.sender),
  });
}
