import type { Actor } from '../alert-view.js';

/** Consumer mail providers: an address there says nothing about an employer. */
const FREE_MAIL = new Set([
  'gmail.com', 'googlemail.com', 'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'ymail.com', 'hotmail.com', 'hotmail.co.uk',
  'hotmail.fr', 'outlook.com', 'live.com', 'msn.com', 'icloud.com', 'me.com', 'mac.com', 'aol.com', 'proton.me',
  'protonmail.com', 'pm.me', 'gmx.com', 'gmx.de', 'gmx.net', 'web.de', 'yandex.com', 'yandex.ru', 'mail.ru',
  'qq.com', '163.com', '126.com', 'zoho.com', 'fastmail.com', 'hey.com', 'tutanota.com', 'tuta.io', 'mail.com',
  'orange.fr', 'free.fr', 'laposte.net', 't-online.de', 'libero.it', 'seznam.cz', 'rediffmail.com', 'naver.com',
]);

/** Second-level suffixes under which the registrable name is one label further left (acme.co.uk → acme). */
const TWO_PART_SUFFIXES = new Set(['co.uk', 'org.uk', 'ac.uk', 'com.au', 'net.au', 'co.nz', 'co.jp', 'com.br', 'co.in', 'com.mx', 'co.za', 'com.sg', 'com.cn']);

const titleCase = (s: string) =>
  s
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1).toLowerCase())
    .join(' ');

function nameFromEmail(email: string): string | undefined {
  const local = email.split('@')[0]!.replace(/\+.*$/, '');
  const words = local.split(/[._-]+/).filter((w) => /[a-z]/i.test(w)).map((w) => w.replace(/\d+/g, ''));
  const name = titleCase(words.join(' '));
  return name || undefined;
}

function companyFromEmail(email: string): string | undefined {
  const domain = email.split('@')[1]?.toLowerCase().trim();
  if (!domain || FREE_MAIL.has(domain)) return undefined;
  const labels = domain.split('.');
  if (labels.length < 2) return undefined;
  const suffix2 = labels.slice(-2).join('.');
  const nameLabel = TWO_PART_SUFFIXES.has(suffix2) ? labels[labels.length - 3] : labels[labels.length - 2];
  if (!nameLabel) return undefined;
  return titleCase(nameLabel.replace(/-/g, ' '));
}

function initialsOf(name: string): string | undefined {
  const words = name.split(/\s+/).filter((w) => /\p{L}|\p{N}/u.test(w));
  if (words.length === 0) return undefined;
  const first = [...words[0]!][0]!;
  const last = words.length > 1 ? [...words[words.length - 1]!][0]! : '';
  return (first + last).toUpperCase();
}

/**
 * Fills what can be derived from the e-mail alone: display name
 * (jane.doe@acme.com → Jane Doe), initials (JD) and the company behind a work
 * domain (acme.com → Acme; free-mail domains give none). Sent values win.
 */
export function enrichActor(actor: Actor): Actor {
  const derived = actor.email ? fromEmail(actor.email) : undefined;
  const name = actor.name ?? derived?.name;
  const out: Actor = {};
  // Built key by key (no spread-then-delete, which turns the object into a slow dictionary).
  for (const k of ['name', 'email', 'id', 'plan', 'company', 'location', 'avatarUrl', 'url'] as const) {
    const v = k === 'name' ? name : k === 'company' ? (actor.company ?? derived?.company) : actor[k];
    if (v !== undefined) out[k] = v;
  }
  const initials = actor.initials ?? (name ? memo(initialsCache, name, initialsOf) : undefined);
  if (initials !== undefined) out.initials = initials;
  return out;
}

// Senders repeat the same few actors: derivations are memoised (bounded) so the
// webhook's hot path does not re-run the Unicode regexes for each alert.
const MEMO_MAX = 5_000;
const emailCache = new Map<string, { name?: string; company?: string }>();
const initialsCache = new Map<string, string | undefined>();

function memo<T>(cache: Map<string, T>, key: string, fn: (k: string) => T): T {
  if (cache.has(key)) return cache.get(key)!;
  const v = fn(key);
  if (cache.size >= MEMO_MAX) cache.delete(cache.keys().next().value!);
  cache.set(key, v);
  return v;
}

const fromEmail = (email: string) => memo(emailCache, email, (e) => ({ name: nameFromEmail(e), company: companyFromEmail(e) }));
