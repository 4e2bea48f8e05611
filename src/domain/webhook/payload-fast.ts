import { z } from 'zod';
import type { Actor, Field } from '../alert-view.js';
import { resolveEmoji } from './emoji.js';
import { PAYLOAD_LIMITS as LIMITS } from './payload-limits.js';

/**
 * The webhook members' rules checked by hand, for the common values: each
 * check answers what its member's zod schema (payload.ts, the same table
 * entry) would output, `undefined` when the member is absent and optional,
 * or NOT_COVERED for anything else (a value of an unexpected type, past a
 * limit, or a member only the schema checks). The schema then decides and
 * words the errors; test/webhook/payload-fast.test.ts holds the two to the
 * same answers.
 */
export const NOT_COVERED: unique symbol = Symbol('not covered by the hand check');
export type FastCheck<T> = (value: unknown) => T | typeof NOT_COVERED;

const isObject = (v: unknown): v is object => typeof v === 'object' && v !== null && !Array.isArray(v);
const isText = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;

export const title: FastCheck<string> = (v) => (isText(v, LIMITS.title) && v.length > 0 && v.trim() !== '' ? v : NOT_COVERED);

const LEVELS = new Set(['info', 'success', 'warning', 'error'] as const);
type Level = typeof LEVELS extends Set<infer L> ? L : never;

export const level: FastCheck<Level> = (v) => {
  if (v === undefined) return 'info';
  if (typeof v !== 'string') return NOT_COVERED;
  const lower = v.toLowerCase();
  return LEVELS.has(lower as Level) ? (lower as Level) : NOT_COVERED;
};

export const emoji: FastCheck<string> = (v) => {
  if (v === undefined) return '';
  if (typeof v !== 'string') return NOT_COVERED;
  const r = resolveEmoji(v);
  return r.ok ? r.emoji : NOT_COVERED;
};

export const optionalText =
  (max: number): FastCheck<string | undefined> =>
  (v) =>
    v === undefined || isText(v, max) ? v : NOT_COVERED;

function isHttpUrl(v: unknown, max: number): v is string {
  if (!isText(v, max)) return false;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Takes its limit, as optionalText does, so a URL member with its own limit is one line in payload.ts. */
export const optionalHttpUrl =
  (max: number): FastCheck<string | undefined> =>
  (v) =>
    v === undefined || isHttpUrl(v, max) ? v : NOT_COVERED;

/** For members only the schema checks: covered when absent. */
export const onlyAbsent: FastCheck<undefined> = (v) => (v === undefined ? undefined : NOT_COVERED);

export const fields: FastCheck<Field[] | undefined> = (v) => {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length > LIMITS.fields) return NOT_COVERED;
  const out: Field[] = [];
  for (const f of v as unknown[]) {
    if (!isObject(f)) return NOT_COVERED;
    const { label, name, value, inline } = f as Record<string, unknown>;
    if (label !== undefined && (!isText(label, LIMITS.fieldLabel) || label.length === 0)) return NOT_COVERED;
    if (name !== undefined && (!isText(name, LIMITS.fieldLabel) || name.length === 0)) return NOT_COVERED;
    if (label === undefined && name === undefined) return NOT_COVERED;
    if (!(isText(value, LIMITS.fieldValue) || typeof value === 'number' || typeof value === 'boolean')) return NOT_COVERED;
    if (inline !== undefined && typeof inline !== 'boolean') return NOT_COVERED;
    out.push({ label: (label ?? name) as string, value: String(value), inline: inline ?? false });
  }
  return out;
};

/** The object as sent (zod keeps it as sent too). */
export const metadata: FastCheck<Record<string, unknown> | undefined> = (v) => {
  if (v === undefined) return undefined;
  if (!isObject(v)) return NOT_COVERED;
  return Buffer.byteLength(JSON.stringify(v)) <= LIMITS.metadataBytes ? (v as Record<string, unknown>) : NOT_COVERED;
};

const EMAIL = z.regexes.email;
const SIMPLE_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ACTOR_TEXT_KEYS = ['name', 'plan', 'company', 'location'] as const;

/** The actor as the schema's ActorInput gives it (before enrichment). */
export const actor: FastCheck<Actor | undefined> = (v) => {
  if (v === undefined) return undefined;
  if (typeof v === 'string') {
    if (v.length === 0 || v.length > LIMITS.actorText) return NOT_COVERED;
    const s = v.trim();
    return SIMPLE_EMAIL.test(s) ? { email: s } : { name: s };
  }
  if (!isObject(v)) return NOT_COVERED;
  const a = v as Record<string, unknown>;
  const out: Actor = {};
  for (const k of ACTOR_TEXT_KEYS) {
    const t = a[k];
    if (t === undefined) continue;
    if (!isText(t, LIMITS.actorText) || t.length === 0) return NOT_COVERED;
    out[k] = t;
  }
  if (a.email !== undefined) {
    if (!isText(a.email, LIMITS.email) || !EMAIL.test(a.email)) return NOT_COVERED;
    out.email = a.email;
  }
  if (a.id !== undefined) {
    if (typeof a.id === 'number') out.id = String(a.id);
    else if (isText(a.id, LIMITS.actorText) && a.id.length > 0) out.id = a.id;
    else return NOT_COVERED;
  }
  for (const k of ['avatarUrl', 'url'] as const) {
    const u = a[k];
    if (u === undefined) continue;
    if (!isHttpUrl(u, LIMITS.linkUrl)) return NOT_COVERED;
    out[k] = u;
  }
  // The schema's refine: at least one member.
  return Object.keys(out).length > 0 ? out : NOT_COVERED;
};

export const dedupKey: FastCheck<string | undefined> = (v) => (v === undefined || (isText(v, LIMITS.dedupKey) && v.length > 0) ? v : NOT_COVERED);

/** Any value: `status` counts only beside a dedupKey, where parseCommonPayload checks it. */
export const anything: FastCheck<unknown> = (v) => v;

/** The statuses a sender may post with a dedupKey. */
export const SENDER_STATUSES: readonly unknown[] = ['open', 'resolved'];
