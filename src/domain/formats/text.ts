/** Text helpers shared by the format mappers: cutting to limits and picking a title line. */

export const ELLIPSIS = '…';

/**
 * Cuts `s` to at most `max` UTF-16 units (the unit zod's `.max` counts),
 * ending with `…` when something was cut. A surrogate pair is never split, so
 * the result is always well-formed text.
 */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  let head = s.slice(0, Math.max(0, max - 1));
  const last = head.charCodeAt(head.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) head = head.slice(0, -1);
  return head.trimEnd() + ELLIPSIS;
}

/** The first non-blank line, trimmed, or '' when there is none. */
export function firstLine(s: string | undefined): string {
  if (!s) return '';
  for (const line of s.split(/\r?\n/)) {
    const t = line.trim();
    if (t !== '') return t;
  }
  return '';
}

/** Joins the non-empty parts with a blank line between them (paragraphs of a message). */
export function paragraphs(parts: readonly (string | undefined | null)[]): string {
  return parts
    .map((p) => (p ?? '').trim())
    .filter((p) => p !== '')
    .join('\n\n');
}

/** An absolute http(s) URL that fits `max`, or undefined: a link is dropped, never cut into a wrong one. */
export function httpUrl(v: string | undefined, max: number): string | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  if (s === '' || s.length > max) return undefined;
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? s : undefined;
  } catch {
    return undefined;
  }
}

/** "1 alert", "3 alerts". */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
