/**
 * Pure text helpers of the alert card, shared by the e-mail and the dashboard
 * (the HTML components and the e-mails' text parts format alike).
 */

/** The failed run's log tail: the END of the log is what explains the failure. */
const ERROR_TAIL_LINES = 40;
const ERROR_TAIL_CHARS = 4_000;

/** Only absolute http(s) URLs reach an href or src: no javascript:, data: or relative tricks. */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
  } catch {
    return null;
  }
}

export const oneLine = (s: string): string => s.replace(/[\r\n\t]+/g, ' ').replace(/\s{2,}/g, ' ').trim();
export const clip = (s: string, n: number): string => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Minute precision in UTC: what a card's header and an e-mail show as "when". */
export const utcMinute = (iso: string): string => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  if (seconds < 60) return `${+seconds.toFixed(seconds < 10 ? 1 : 0)}s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  if (m < 60) return s ? `${m}m ${s}s` : `${m}m`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** A span of time in words, for prose: "30 seconds", "1 minute", "90 seconds", "2 hours". */
export function formatSpan(ms: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (ms < 1000) return unit(Math.max(0, Math.round(ms)), 'millisecond');
  const s = Math.round(ms / 1000);
  if (s % 3600 === 0) return unit(s / 3600, 'hour');
  if (s % 60 === 0) return unit(s / 60, 'minute');
  return unit(s, 'second');
}

export function errorTail(error: string): string {
  const lines = error.replace(/\s+$/, '').split(/\r?\n/);
  let tail = lines.slice(-ERROR_TAIL_LINES).join('\n');
  if (tail.length > ERROR_TAIL_CHARS) tail = `…${tail.slice(-ERROR_TAIL_CHARS)}`;
  else if (lines.length > ERROR_TAIL_LINES) tail = `…\n${tail}`;
  return tail;
}

/** A run of sender text; `href` set when the run is a URL the card shows as a link. */
export interface TextSegment {
  text: string;
  href?: string;
  /** The text is a masked link's label (`[label](url)`), not the URL itself. */
  masked?: true;
}
/** One line of sender text. Lines are kept apart so the markup can break them without HTML in the text. */
export type TextLine = TextSegment[];

const URL_RE = /\bhttps?:\/\/[^\s<>"'`]+/gi;

/**
 * Punctuation that ends a sentence is not part of the URL before it ("see
 * https://x.test/a." links https://x.test/a); a closing parenthesis stays when
 * the URL opened one (Wikipedia-style paths).
 */
function trimUrl(candidate: string): string {
  let url = candidate;
  for (;;) {
    const last = url.at(-1);
    if (last && '.,;:!?*_~'.includes(last)) url = url.slice(0, -1);
    else if ((last === ')' && count(url, '(') < count(url, ')')) || (last === ']' && count(url, '[') < count(url, ']'))) url = url.slice(0, -1);
    else return url;
  }
}
const count = (s: string, ch: string) => s.split(ch).length - 1;

/**
 * A masked link, `[label](https://…)`: Markdown's and Discord's form, and what the
 * Slack format writes for `<url|label>`. The URL may hold one level of parentheses.
 */
const MASKED_RE = /\[([^[\]\n]{1,500})\]\((https?:\/\/(?:[^\s()<>]|\([^\s()<>]*\))+)\)/gi;

/** Bare http(s) URLs of a piece of a line, as segments. */
function bareLinks(piece: string, out: TextLine): void {
  let at = 0;
  for (const m of piece.matchAll(URL_RE)) {
    const url = trimUrl(m[0]);
    const href = safeUrl(url);
    if (!href) continue;
    if (m.index > at) out.push({ text: piece.slice(at, m.index) });
    // href is the parsed URL (normalised); the visible text is what the sender wrote.
    out.push({ text: url, href });
    at = m.index + url.length;
  }
  if (at < piece.length) out.push({ text: piece.slice(at) });
}

/**
 * Splits plain text into lines of segments with links marked: a masked link
 * `[label](url)` shows its label, a bare http(s) URL itself; the text is
 * otherwise kept verbatim.
 */
export function linkify(text: string): TextLine[] {
  return text.split(/\r?\n/).map((line) => {
    const out: TextLine = [];
    let at = 0;
    for (const m of line.matchAll(MASKED_RE)) {
      const href = safeUrl(m[2]);
      if (!href || m[1]!.trim() === '') continue;
      bareLinks(line.slice(at, m.index), out);
      out.push({ text: m[1]!, href, masked: true });
      at = m.index + m[0].length;
    }
    bareLinks(line.slice(at), out);
    if (out.length === 0) out.push({ text: '' });
    return out;
  });
}

/** Text with each masked link reduced to its label: a notification's excerpt has no room for the address. */
export const maskedLinkLabels = (text: string): string =>
  text.replace(MASKED_RE, (all, label: string, url: string) => (safeUrl(url) && label.trim() !== '' ? label : all));

/** The plain text back from linkified lines (the e-mails' text parts): a masked link reads "label (url)". */
export const plainText = (lines: TextLine[]): string =>
  lines.map((l) => l.map((s) => (s.masked ? `${s.text} (${s.href})` : s.text)).join('')).join('\n');

/**
 * Up to two letters for an avatar placeholder, as the webhook derives them when
 * it stores an actor (first and last word): "Ada King Lovelace" → "AL". Used when
 * the alert carries none (an actor known only by e-mail or id, a chat author).
 */
export function initialsOf(name: string): string {
  const words = name
    .replace(/@.*$/, '')
    .split(/[\s._-]+/)
    .map((w) => w.replace(/^[^\p{L}\p{N}]+/u, ''))
    .filter((w) => w.length > 0);
  if (!words.length) return '?';
  const first = [...words[0]!][0]!;
  const last = words.length > 1 ? [...words[words.length - 1]!][0]! : '';
  return (first + last).toUpperCase();
}

/** Sender-given initials, kept to what fits the 20px circle. */
export const shortInitials = (s: string): string => [...s.trim()].slice(0, 3).join('');
