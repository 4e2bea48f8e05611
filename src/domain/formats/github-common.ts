import { lobj, lstr } from './lenient.js';
import type { RawDraft } from './draft.js';

export const GithubUser = lobj({ login: lstr, id: lstr, avatar_url: lstr, html_url: lstr });
export const GithubRepo = lobj({ full_name: lstr, html_url: lstr });

type User = NonNullable<ReturnType<typeof GithubUser.parse>>;
type Repo = NonNullable<ReturnType<typeof GithubRepo.parse>>;

/** Every GitHub title starts with the repository, so a channel several repositories post to reads well. */
export const repoName = (repo: Repo | undefined) => repo?.full_name?.trim() || 'GitHub';

export const titled = (repo: Repo | undefined, rest: string) => `${repoName(repo)} · ${rest}`;

/** The sender as the alert's actor, with GitHub's avatar. */
export function actorOf(user: User | undefined): RawDraft['actor'] {
  if (!user?.login) return undefined;
  return { name: user.login, id: user.id, avatarUrl: user.avatar_url, url: user.html_url };
}

export const shortSha = (sha: string | undefined) => (sha ?? '').slice(0, 7);

/** A ref without its refs/heads/ or refs/tags/ prefix, and which of the two it was. */
export function splitRef(ref: string | undefined): { kind: 'branch' | 'tag'; name: string } {
  const r = ref ?? '';
  if (r.startsWith('refs/tags/')) return { kind: 'tag', name: r.slice('refs/tags/'.length) };
  return { kind: 'branch', name: r.replace(/^refs\/heads\//, '') };
}

/** Common parts of every GitHub alert. */
export const githubBase = (event: string) => ({ source: 'GitHub', metadata: { via: 'github', event } });
