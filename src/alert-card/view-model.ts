import type { AlertView, ChatAlert, StandardAlert } from '../domain/alert-view.js';
import { errorTail, formatSeconds, initialsOf, linkify, safeUrl, shortInitials, utcMinute, type TextLine } from './format.js';

/**
 * The alert card's view model: plain data computed once from the public alert
 * shape (what the read API returns), rendered by the components in this folder
 * for e-mail and for the dashboard alike. Every decision about WHAT a card shows
 * (which URL is safe, which emoji, how a duration reads, which log lines) is made
 * here; the components only decide how it looks.
 *
 * Nested types are taken from the public alert types by indexed access, so this
 * module depends on the read API's shape only.
 */

type AlertField = StandardAlert['fields'][number];
type AlertActor = NonNullable<StandardAlert['actor']>;
type AlertWorkflow = NonNullable<StandardAlert['workflow']>;
type AlertStep = AlertWorkflow['steps'][number];

export type Level = StandardAlert['level'];
export type StepState = AlertStep['state'];
/** The colour family of a part of the card: a level's, or a workflow state's. */
export type Tone = 'info' | 'success' | 'warning' | 'error' | 'neutral';

export const LEVEL_TONE: Record<Level, Tone> = { INFO: 'info', SUCCESS: 'success', WARNING: 'warning', ERROR: 'error' };
export const LEVEL_EMOJI: Record<Level, string> = { INFO: 'ℹ️', SUCCESS: '✅', WARNING: '⚠️', ERROR: '🚨' };

const STEP_LOOK: Record<StepState, { symbol: string; tone: Tone }> = {
  done: { symbol: '✓', tone: 'success' },
  failed: { symbol: '✗', tone: 'error' },
  running: { symbol: '●', tone: 'info' },
  pending: { symbol: '○', tone: 'neutral' },
  skipped: { symbol: '–', tone: 'neutral' },
};
/** The spec's run states; the public type says string, so anything else reads neutral. */
const RUN_TONE: Record<string, Tone> = { passed: 'success', failed: 'error', running: 'info' };

/** Inline fields share a grid row of up to this many cells (Discord's embed grid). */
export const FIELDS_PER_ROW = 3;

export interface FieldModel {
  label: string;
  value: TextLine[];
  inline: boolean;
}
/** One row of the fields grid: up to FIELDS_PER_ROW inline fields side by side, or one field across. */
export interface FieldRow {
  inline: boolean;
  fields: FieldModel[];
}

export interface ActorModel {
  name: string;
  /** Sender-supplied; null unless http(s). */
  profileUrl: string | null;
  avatarUrl: string | null;
  /** Shown where there is no avatar (and as the avatar's fallback on pages). */
  initials: string;
  company: string | null;
  /** The secondary facts shown after the name: e-mail (when a name is given), company, plan, location. */
  details: string[];
}

export interface StepModel {
  name: string;
  state: StepState;
  symbol: string;
  tone: Tone;
  /** "42s", "1m 35s"; null when the sender gave no duration. */
  duration: string | null;
  info: string | null;
}

export interface WorkflowModel {
  runId: string;
  state: string;
  tone: Tone;
  steps: StepModel[];
  /** The step that failed, for "failed at" summaries. */
  failedStep: string | null;
  /** The end of the error log, only for a failed run. */
  errorTail: string | null;
}

export type AttachmentKind = 'image' | 'video' | 'audio' | 'file';
export interface AttachmentModel {
  kind: AttachmentKind;
  url: string;
  mime: string;
  /** What a link or alt text says: the sender's name, else the type. */
  label: string;
  /** The sender's name for the file, if any (images use it as alt text). */
  name: string | null;
}

/** When the alert happened: the ISO instant (for <time datetime> and relative times) and the exact text. */
export interface TimeModel {
  iso: string;
  text: string;
}

export interface AlertCardModel {
  kind: 'alert';
  id: string;
  channelId: string;
  level: Level;
  tone: Tone;
  /** The sender's emoji, else the level's. */
  emoji: string;
  title: string;
  message: TextLine[] | null;
  fields: FieldRow[];
  link: { href: string; text: string } | null;
  source: string | null;
  actor: ActorModel | null;
  workflow: WorkflowModel | null;
  attachments: AttachmentModel[];
  createdAt: TimeModel;
  updatedAt: TimeModel;
  isRead: boolean;
}

export type ChatRole = ChatAlert['author']['role'];
export interface ChatCardModel {
  kind: 'chat';
  id: string;
  channelId: string;
  author: { name: string; role: ChatRole; bot: boolean; initials: string };
  message: TextLine[] | null;
  replyTo: { author: string; excerpt: string } | null;
  attachments: AttachmentModel[];
  createdAt: TimeModel;
  editedAt: TimeModel | null;
  isRead: boolean;
  /** The message's thread or forum post (its current name); null in the channel itself. */
  thread: { id: string; name: string } | null;
  /** A forum post's tags, by name. */
  tags: string[];
  /** Reaction chips and the sentence that names them all ("3 reactions: 👍 2, 🎉 1"); no items, no chips. */
  reactions: { items: { emoji: string; count: number }[]; label: string };
}

export type CardModel = AlertCardModel | ChatCardModel;

const time = (iso: string): TimeModel => ({ iso, text: utcMinute(iso) });

export function toCardModel(alert: AlertView): CardModel {
  return 'title' in alert ? toAlertCard(alert) : toChatCard(alert);
}

export function toAlertCard(a: StandardAlert): AlertCardModel {
  const link = safeUrl(a.linkUrl);
  const actor = a.actor ? actorModel(a.actor) : null;
  return {
    kind: 'alert',
    id: a.id,
    channelId: a.channelId,
    level: a.level,
    tone: LEVEL_TONE[a.level],
    emoji: a.emoji ?? LEVEL_EMOJI[a.level],
    title: a.title,
    message: a.message ? linkify(a.message) : null,
    fields: fieldRows(a.fields),
    link: link ? { href: link, text: a.linkText ?? 'View' } : null,
    // A sender that names itself twice (Slack's username and author_name) is shown once, by the actor line.
    source: a.source && !(actor && sameName(a.source, actor.name)) ? a.source : null,
    actor,
    workflow: a.workflow ? workflowModel(a.workflow) : null,
    attachments: a.attachments.flatMap((x) => attachmentModel(x.url, x.mime, x.type, x.name)),
    createdAt: time(a.createdAt),
    updatedAt: time(a.updatedAt),
    isRead: a.isRead,
  };
}

export function toChatCard(m: ChatAlert): ChatCardModel {
  return {
    kind: 'chat',
    id: m.id,
    channelId: m.channelId,
    author: { name: m.author.name, role: m.author.role, bot: m.author.bot, initials: initialsOf(m.author.name) },
    message: m.message ? linkify(m.message) : null,
    replyTo: m.replyTo ? { author: m.replyTo.author, excerpt: m.replyTo.excerpt } : null,
    attachments: m.attachments.flatMap((x) => attachmentModel(x.url, x.mime, null, null)),
    createdAt: time(m.createdAt),
    editedAt: m.editedAt ? time(m.editedAt) : null,
    isRead: m.isRead,
    thread: m.thread ? { id: m.thread.id, name: m.thread.name } : null,
    tags: m.tags ?? [],
    reactions: reactionsModel(m.reactions ?? []),
  };
}

/** Reactions with a positive count, and their sum said as one sentence for screen readers. */
export function reactionsModel(reactions: ChatAlert['reactions']): ChatCardModel['reactions'] {
  const items = reactions.filter((r) => r.count > 0).map((r) => ({ emoji: r.emoji, count: r.count }));
  const total = items.reduce((n, r) => n + r.count, 0);
  const label = `${total} ${total === 1 ? 'reaction' : 'reactions'}: ${items.map((r) => `${r.emoji} ${r.count}`).join(', ')}`;
  return { items, label };
}

const sameName = (x: string, y: string) => x.trim().toLowerCase() === y.trim().toLowerCase();

function fieldRows(fields: AlertField[]): FieldRow[] {
  const rows: FieldRow[] = [];
  let grid: FieldModel[] = [];
  const flush = () => {
    if (grid.length) rows.push({ inline: true, fields: grid });
    grid = [];
  };
  for (const f of fields) {
    const model = { label: f.label, value: linkify(f.value), inline: f.inline };
    if (!f.inline) {
      flush();
      rows.push({ inline: false, fields: [model] });
      continue;
    }
    grid.push(model);
    if (grid.length === FIELDS_PER_ROW) flush();
  }
  flush();
  return rows;
}

function actorModel(x: AlertActor): ActorModel {
  const name = x.name ?? x.email ?? x.id ?? '';
  return {
    name,
    profileUrl: safeUrl(x.url),
    avatarUrl: safeUrl(x.avatarUrl),
    initials: (x.initials && shortInitials(x.initials)) || initialsOf(name),
    company: x.company ?? null,
    details: [x.name && x.email ? x.email : null, x.company, x.plan, x.location].filter((d): d is string => !!d),
  };
}

function workflowModel(workflow: AlertWorkflow): WorkflowModel {
  const steps = workflow.steps.map((step): StepModel => {
    const look = STEP_LOOK[step.state] ?? { symbol: '·', tone: 'neutral' };
    return { name: step.name, state: step.state, symbol: look.symbol, tone: look.tone, duration: step.seconds !== undefined ? formatSeconds(step.seconds) || null : null, info: step.info ?? null };
  });
  const failed = workflow.state === 'failed';
  return {
    runId: workflow.runId,
    state: workflow.state,
    tone: RUN_TONE[workflow.state] ?? 'neutral',
    steps,
    failedStep: steps.find((s) => s.state === 'failed')?.name ?? null,
    errorTail: failed && workflow.error ? errorTail(workflow.error) : null,
  };
}

/** Attachments whose URL is not http(s) are left out (media URLs are ours, but the card trusts no URL). */
function attachmentModel(url: string, mime: string, type: string | null, name: string | null): AttachmentModel[] {
  const href = safeUrl(url);
  if (!href) return [];
  const kind = kindOf(type ?? mime.split('/')[0] ?? '');
  return [{ kind, url: href, mime, name, label: name ?? (kind === 'file' ? mime : `${kind} (${mime})`) }];
}

const kindOf = (t: string): AttachmentKind => (t === 'image' || t === 'video' || t === 'audio' ? t : 'file');

/** The run phase shown beside the level ("run failed"); a started notification says "run started". */
export function runPhase(card: AlertCardModel, started = false): string | null {
  if (!card.workflow) return null;
  return started && card.workflow.state === 'running' ? 'run started' : `run ${card.workflow.state}`;
}
