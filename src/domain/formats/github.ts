import { AppError } from '../errors.js';
import type { IngestCommand } from './command.js';
import { mapIssues, mapPullRequest, mapPush, mapRelease } from './github-events.js';
import { mapWorkflowJob, mapWorkflowRun } from './github-workflow.js';
import { isPlainObject } from './lenient.js';

const MAPPERS: Readonly<Record<string, (body: unknown) => IngestCommand>> = {
  workflow_run: mapWorkflowRun,
  workflow_job: mapWorkflowJob,
  push: mapPush,
  pull_request: mapPullRequest,
  issues: mapIssues,
  release: mapRelease,
};

/**
 * Maps a GitHub webhook delivery by its `X-GitHub-Event` header. `ping` (sent
 * when the webhook is created) is answered without an alert; events and
 * actions not mapped here are ignored, never refused, so a webhook set to send
 * everything does not show as failing in GitHub's delivery log.
 */
export function mapGithub(event: string | undefined, body: unknown): IngestCommand {
  const name = event?.trim().toLowerCase();
  if (!name) throw new AppError('invalid-payload', 'the X-GitHub-Event header is missing');
  if (name === 'ping') return { kind: 'ping' };
  if (!isPlainObject(body)) throw new AppError('invalid-payload', 'the body must be a JSON object');
  const mapper = Object.hasOwn(MAPPERS, name) ? MAPPERS[name] : undefined;
  return mapper ? mapper(body) : { kind: 'ignored', event: name };
}
