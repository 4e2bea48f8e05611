import { z } from 'zod';
import type { DraftStep, IngestCommand, JobCommand, RunCommand } from './command.js';
import { finishDraft, finishStep } from './draft.js';
import { actorOf, githubBase, GithubRepo, GithubUser, repoName, shortSha, titled } from './github-common.js';
import { lnum, lobj, lstr } from './lenient.js';

const WorkflowRunEvent = z.object({
  action: lstr,
  workflow_run: lobj({
    id: lstr,
    name: lstr,
    run_number: lstr,
    run_attempt: lnum,
    conclusion: lstr,
    html_url: lstr,
    head_branch: lstr,
    head_sha: lstr,
    event: lstr,
    display_title: lstr,
  }),
  workflow: lobj({ name: lstr }),
  repository: GithubRepo,
  sender: GithubUser,
});

const WorkflowJobEvent = z.object({
  action: lstr,
  workflow_job: lobj({
    run_id: lstr,
    run_attempt: lnum,
    name: lstr,
    status: lstr,
    conclusion: lstr,
    started_at: lstr,
    completed_at: lstr,
    workflow_name: lstr,
    head_branch: lstr,
    head_sha: lstr,
  }),
  repository: GithubRepo,
  sender: GithubUser,
});

/** One run attempt is one alert: a re-run is a new attempt and a new alert, as GitHub shows it. */
export const githubRunId = (repo: string, runId: string, attempt: number | undefined) => `github:${repo}:${runId}:${attempt ?? 1}`;

/** Conclusions that count as a passed run (GitHub shows neutral and skipped runs as not failed). */
const PASSED = new Set(['success', 'neutral', 'skipped']);

/**
 * workflow_run: requested and in_progress are running; completed is passed
 * for success, neutral and skipped, otherwise failed with the conclusion as
 * the run's error. Steps are left empty: they come from workflow_job events.
 */
export function mapWorkflowRun(raw: unknown): IngestCommand {
  const e = WorkflowRunEvent.parse(raw);
  const run = e.workflow_run;
  if (!run?.id || !['requested', 'in_progress', 'completed'].includes(e.action ?? '')) {
    return { kind: 'ignored', event: 'workflow_run', action: e.action };
  }
  const repo = repoName(e.repository);
  const runId = githubRunId(repo, run.id, run.run_attempt);
  let state: 'running' | 'passed' | 'failed' = 'running';
  let error: string | undefined;
  if (e.action === 'completed') {
    const conclusion = run.conclusion ?? 'unknown';
    state = PASSED.has(conclusion) ? 'passed' : 'failed';
    if (state === 'failed') error = conclusion;
  }
  const name = run.name ?? e.workflow?.name ?? 'workflow';
  const attempt = run.run_attempt ?? 1;
  const { payload } = finishDraft({
    ...githubBase('workflow_run'),
    title: titled(e.repository, `${name}${run.run_number ? ` #${run.run_number}` : ''}${attempt > 1 ? ` (attempt ${attempt})` : ''}`),
    level: state === 'passed' ? 'success' : state === 'failed' ? 'error' : 'info',
    emoji: 'gear',
    message: run.display_title,
    fields: [
      ...(run.head_branch ? [{ label: 'Branch', value: run.head_branch, inline: true }] : []),
      ...(run.head_sha ? [{ label: 'Commit', value: shortSha(run.head_sha), inline: true }] : []),
      ...(run.event ? [{ label: 'Trigger', value: run.event, inline: true }] : []),
    ],
    linkUrl: run.html_url,
    linkText: 'View run',
    actor: actorOf(e.sender),
    workflow: { runId, state, steps: [], error },
  });
  return { kind: 'run', runId, payload: payload as RunCommand['payload'] };
}

function seconds(started: string | undefined, completed: string | undefined): number | undefined {
  if (!started || !completed) return undefined;
  const s = Date.parse(started);
  const c = Date.parse(completed);
  return Number.isFinite(s) && Number.isFinite(c) && c >= s ? Math.round((c - s) / 1000) : undefined;
}

function stepState(status: string | undefined, conclusion: string | undefined): Pick<DraftStep, 'state' | 'info'> {
  if (status !== 'completed') return { state: status === 'in_progress' ? 'running' : 'pending' };
  if (conclusion === 'success' || conclusion === 'neutral') return { state: 'done' };
  if (conclusion === 'skipped') return { state: 'skipped' };
  return { state: 'failed', info: conclusion ?? 'unknown' };
}

/**
 * workflow_job: one step per job, keyed by the job's name (GitHub's name for a
 * matrix job includes its matrix values, so each is its own step). Queued and
 * waiting jobs are pending; completed jobs carry their duration in seconds.
 */
export function mapWorkflowJob(raw: unknown): IngestCommand {
  const e = WorkflowJobEvent.parse(raw);
  const job = e.workflow_job;
  if (!job?.run_id || !job.name || !['queued', 'waiting', 'in_progress', 'completed'].includes(e.action ?? '')) {
    return { kind: 'ignored', event: 'workflow_job', action: e.action };
  }
  const repo = repoName(e.repository);
  const runId = githubRunId(repo, job.run_id, job.run_attempt);
  const step = finishStep({
    name: job.name,
    ...stepState(job.status ?? (e.action === 'completed' ? 'completed' : e.action), job.conclusion),
    seconds: job.status === 'completed' || e.action === 'completed' ? seconds(job.started_at, job.completed_at) : undefined,
  });
  const attempt = job.run_attempt ?? 1;
  const runUrl = e.repository?.html_url ? `${e.repository.html_url}/actions/runs/${job.run_id}${attempt > 1 ? `/attempts/${attempt}` : ''}` : undefined;
  const { payload } = finishDraft({
    ...githubBase('workflow_job'),
    title: titled(e.repository, `${job.workflow_name ?? 'workflow'}${attempt > 1 ? ` (attempt ${attempt})` : ''}`),
    level: 'info',
    emoji: 'gear',
    fields: [
      ...(job.head_branch ? [{ label: 'Branch', value: job.head_branch, inline: true }] : []),
      ...(job.head_sha ? [{ label: 'Commit', value: shortSha(job.head_sha), inline: true }] : []),
    ],
    linkUrl: runUrl,
    linkText: 'View run',
    actor: actorOf(e.sender),
    workflow: { runId, state: 'running', steps: [] },
  });
  const command: JobCommand = { kind: 'job', runId, step, runPayload: payload as RunCommand['payload'] };
  return command;
}
