import { AppError } from '../errors.js';
import { resolveEmoji } from '../webhook/emoji.js';
import type { AlertDraft, DraftActor, DraftLevel, DraftStep } from './command.js';
import { FORMAT_LIMITS as L } from './limits.js';
import { cut, httpUrl } from './text.js';

/** What a mapper collects before limits are applied: any length, any number of fields. */
export interface RawDraft {
  title: string;
  level: DraftLevel;
  emoji?: string;
  message?: string;
  fields?: readonly { label: string; value: string; inline?: boolean }[];
  linkUrl?: string;
  linkText?: string;
  source?: string;
  actor?: { name?: string; id?: string; avatarUrl?: string; url?: string };
  metadata?: Record<string, string | number | boolean>;
  workflow?: { runId: string; state: 'running' | 'passed' | 'failed'; steps?: readonly DraftStep[]; error?: string };
}

/** Thrown when a body is readable but carries nothing to show (the only 400 besides unreadable bodies). */
export const noContent = (detail: string) => new AppError('invalid-payload', detail);

const clean = (s: string | undefined) => {
  const t = s?.trim();
  return t ? t : undefined;
};

/**
 * Brings a mapper's draft within every webhook limit: text is cut with `…`,
 * fields beyond the cap are dropped, a link or avatar that is not an http(s)
 * URL or is too long is dropped, an emoji that is not one is dropped. The
 * result always passes WebhookPayload. A blank title is the one refusal.
 */
export function finishDraft(raw: RawDraft, attachmentUrls: readonly string[] = []): { payload: AlertDraft; attachmentUrls: string[] } {
  // A title is one line: senders' first lines can carry tabs or stray line breaks.
  const title = cut(raw.title.replace(/\s+/g, ' ').trim(), L.title);
  if (title === '') throw noContent('the body has no text to make an alert title from');
  const out: AlertDraft = { title, level: raw.level };

  const emoji = raw.emoji !== undefined ? resolveEmoji(raw.emoji) : undefined;
  if (emoji?.ok && emoji.emoji !== '') out.emoji = emoji.emoji;

  const message = clean(raw.message);
  if (message) out.message = cut(message, L.message);

  const fields = (raw.fields ?? [])
    .map((f) => ({ label: cut(f.label.replace(/\s+/g, ' ').trim(), L.fieldLabel), value: cut(f.value.trim(), L.fieldValue), inline: f.inline ?? false }))
    .filter((f) => f.label !== '')
    .slice(0, L.fields);
  if (fields.length > 0) out.fields = fields;

  const linkUrl = httpUrl(raw.linkUrl, L.linkUrl);
  if (linkUrl) {
    out.linkUrl = linkUrl;
    const linkText = clean(raw.linkText);
    if (linkText) out.linkText = cut(linkText, L.linkText);
  }

  const source = clean(raw.source);
  if (source) out.source = cut(source, L.source);

  const actor = finishActor(raw.actor);
  if (actor) out.actor = actor;

  if (raw.metadata) out.metadata = raw.metadata;

  if (raw.workflow) {
    const error = clean(raw.workflow.error);
    out.workflow = {
      runId: cut(raw.workflow.runId, L.runId),
      state: raw.workflow.state,
      steps: finishSteps(raw.workflow.steps ?? []),
      ...(error ? { error: cut(error, L.workflowError) } : {}),
    };
  }

  return { payload: out, attachmentUrls: finishAttachmentUrls(attachmentUrls) };
}

export function finishSteps(steps: readonly DraftStep[]): DraftStep[] {
  return steps.slice(0, L.steps).map(finishStep);
}

export function finishStep(s: DraftStep): DraftStep {
  const name = cut(s.name.trim(), L.stepName) || 'job';
  const info = clean(s.info);
  return {
    name,
    state: s.state,
    ...(s.seconds !== undefined && Number.isFinite(s.seconds) && s.seconds >= 0 ? { seconds: s.seconds } : {}),
    ...(info ? { info: cut(info, L.stepInfo) } : {}),
  };
}

function finishActor(a: RawDraft['actor']): DraftActor | undefined {
  if (!a) return undefined;
  const out: DraftActor = {};
  const name = clean(a.name);
  if (name) out.name = cut(name, L.actorText);
  const id = clean(a.id);
  if (id) out.id = cut(id, L.actorText);
  const avatarUrl = httpUrl(a.avatarUrl, L.linkUrl);
  if (avatarUrl) out.avatarUrl = avatarUrl;
  const url = httpUrl(a.url, L.linkUrl);
  if (url) out.url = url;
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Distinct http(s) URLs, in order, at most the attachment cap: extra images are dropped like extra fields. */
export function finishAttachmentUrls(urls: readonly (string | undefined)[]): string[] {
  const seen = new Set<string>();
  for (const u of urls) {
    const ok = httpUrl(u, L.linkUrl);
    if (ok) seen.add(ok);
    if (seen.size === L.attachments) break;
  }
  return [...seen];
}
