import { z } from 'zod';
import type { Actor, Field } from '../alert-view.js';
import { enrichActor } from './actor.js';
import { resolveEmoji } from './emoji.js';
import { PAYLOAD_LIMITS as LIMITS, type WebhookAlert } from './payload.js';

/**
 * The webhook body's common shapes checked without zod (the zod schema cost
 * about 5 µs of a webhook's CPU for a typical body, the checks below about a
 * fifth of it). `parseCommonPayload` answers exactly what `WebhookPayload`
 * would answer for a body it covers, and `undefined` for anything else: a
 * body with attachments or a workflow, a value of an unexpected type, any
 * value past a limit. zod then decides, and words the errors. A differential
 * test (test/webhook/payload-fast.test.ts) holds the two to the same answers.
 */
export function parseCommonPayload(input: unknown): WebhookAlert | undefined {
  if (!isObject(input)) return undefined;
  const p = input as Record<string, unknown>;
  if (p.attachments !== undefined || p.workflow !== undefined) return undefined;

  const title = p.title;
  if (!isText(title, LIMITS.title) || title.length === 0 || title.trim() === '') return undefined;
  const level = levelOf(p.level);
  if (level === undefined) return undefined;
  let emoji = '';
  if (p.emoji !== undefined) {
    if (typeof p.emoji !== 'string') return undefined;
    const r = resolveEmoji(p.emoji);
    if (!r.ok) return undefined;
    emoji = r.emoji;
  }
  const message = optionalText(p.message, LIMITS.message);
  const linkUrl = p.linkUrl === undefined ? null : isHttpUrl(p.linkUrl) ? p.linkUrl : undefined;
  const linkText = optionalText(p.linkText, LIMITS.linkText);
  const source = optionalText(p.source, LIMITS.source);
  if (message === undefined || linkUrl === undefined || linkText === undefined || source === undefined) return undefined;
  const fields = fieldsOf(p.fields);
  if (fields === undefined) return undefined;
  const metadata = metadataOf(p.metadata);
  if (metadata === undefined) return undefined;
  // Both are checked when both are sent (zod parses each); `actor` wins.
  const actor = actorOf(p.actor);
  const user = actorOf(p.user);
  if (actor === undefined || user === undefined) return undefined;
  const who = actor ?? user;

  return {
    title,
    level,
    emoji,
    message,
    fields,
    linkUrl,
    linkText: linkUrl ? (linkText ?? 'View') : linkText,
    source,
    metadata,
    actor: who ? enrichActor(who) : null,
    attachments: [],
    workflow: null,
  };
}

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;

/** null when absent, the text when within `max`, undefined (not covered) otherwise. */
function optionalText(v: unknown, max: number): string | null | undefined {
  if (v === undefined) return null;
  return isText(v, max) ? v : undefined;
}

const LEVELS: ReadonlyMap<string, WebhookAlert['level']> = new Map([
  ['info', 'INFO'],
  ['success', 'SUCCESS'],
  ['warning', 'WARNING'],
  ['error', 'ERROR'],
]);

function levelOf(v: unknown): WebhookAlert['level'] | undefined {
  if (v === undefined) return 'INFO';
  return typeof v === 'string' ? LEVELS.get(v.toLowerCase()) : undefined;
}

function isHttpUrl(v: unknown): v is string {
  if (!isText(v, LIMITS.linkUrl)) return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

function fieldsOf(v: unknown): Field[] | undefined {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > LIMITS.fields) return undefined;
  const out: Field[] = [];
  for (const f of v as unknown[]) {
    if (!isObject(f)) return undefined;
    const { label, name, value, inline } = f as Record<string, unknown>;
    if (label !== undefined && (!isText(label, LIMITS.fieldLabel) || label.length === 0)) return undefined;
    if (name !== undefined && (!isText(name, LIMITS.fieldLabel) || name.length === 0)) return undefined;
    if (label === undefined && name === undefined) return undefined;
    if (!(isText(value, LIMITS.fieldValue) || typeof value === 'number' || typeof value === 'boolean')) return undefined;
    if (inline !== undefined && typeof inline !== 'boolean') return undefined;
    out.push({ label: (label ?? name) as string, value: String(value), inline: inline ?? false });
  }
  return out;
}

/** null when absent; the object as sent (zod keeps it as sent too). */
function metadataOf(v: unknown): Record<string, unknown> | null | undefined {
  if (v === undefined) return null;
  if (!isObject(v)) return undefined;
  return Buffer.byteLength(JSON.stringify(v)) <= LIMITS.metadataBytes ? (v as Record<string, unknown>) : undefined;
}

const EMAIL = z.regexes.email;
const SIMPLE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ACTOR_TEXT_KEYS = ['name', 'plan', 'company', 'location'] as const;

/** null when absent; the actor as zod's ActorInput would give it (before enrichment); undefined when not covered. */
function actorOf(v: unknown): Actor | null | undefined {
  if (v === undefined) return null;
  if (typeof v === 'string') {
    if (v.length === 0 || v.length > LIMITS.actorText) return undefined;
    const s = v.trim();
    return SIMPLE_EMAIL.test(s) ? { email: s } : { name: s };
  }
  if (!isObject(v)) return undefined;
  const a = v as Record<string, unknown>;
  const out: Actor = {};
  for (const k of ACTOR_TEXT_KEYS) {
    const t = a[k];
    if (t === undefined) continue;
    if (!isText(t, LIMITS.actorText) || t.length === 0) return undefined;
    out[k] = t;
  }
  if (a.email !== undefined) {
    if (!isText(a.email, LIMITS.email) || !EMAIL.test(a.email)) return undefined;
    out.email = a.email;
  }
  if (a.id !== undefined) {
    if (typeof a.id === 'number') out.id = String(a.id);
    else if (isText(a.id, LIMITS.actorText) && a.id.length > 0) out.id = a.id;
    else return undefined;
  }
  for (const k of ['avatarUrl', 'url'] as const) {
    const u = a[k];
    if (u === undefined) continue;
    if (!isHttpUrl(u)) return undefined;
    out[k] = u;
  }
  // zod's refine: at least one member.
  return Object.keys(out).length > 0 ? out : undefined;
}
