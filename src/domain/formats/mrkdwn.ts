import { shortcodeEmoji } from '../webhook/emoji.js';

/**
 * Replaces known `:shortcode:`s (the spec's names, then the common GitHub and
 * Slack set) with their emoji, up to the webhook's 64 characters with the
 * colons; unknown ones stay as written: "12:30:45" must survive.
 */
export function replaceShortcodes(s: string): string {
  return s.replace(/:([a-z0-9_+-]{1,62}):/gi, (all, name: string) => shortcodeEmoji(name) ?? all);
}

// Slack escapes exactly these three in message text.
const decodeEntities = (s: string) => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

/** Emphasis markers only count at word edges, as in Slack: snake_case_names and 2*3*4 stay as they are. */
const EMPHASIS = ['\\*', '_', '~'].map((e) => {
  return new RegExp(`(^|[^\\p{L}\\p{N}${e}])${e}(?=\\S)([^${e}\\n]*?\\S)${e}(?![\\p{L}\\p{N}${e}])`, 'gu');
});

function plainSegment(s: string): string {
  let out = s;
  for (const re of EMPHASIS) out = out.replace(re, '$1$2');
  return decodeEntities(replaceShortcodes(out));
}

/**
 * A labelled link as `[label](url)`, which the alert card shows as the label
 * linking to the URL (and e-mail text as "label (url)"). A label the form cannot
 * hold (brackets, a line break) or a non-http URL reads "label (url)".
 */
export function maskedLink(label: string | undefined, url: string): string {
  if (!label || label === url) return url;
  if (/^https?:\/\//i.test(url) && !/[[\]\n]/.test(label) && !/\s/.test(url)) return `[${label}](${url})`;
  return `${label} (${url})`;
}

/** One `<…>` token: a special mention, a user or channel reference, or a link. Undefined: not a token, keep it. */
function token(inner: string): string | undefined {
  const bar = inner.indexOf('|');
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : decodeEntities(inner.slice(bar + 1));
  if (target.startsWith('!')) {
    const name = target.slice(1);
    if (name === 'here' || name === 'channel' || name === 'everyone') return `@${name}`;
    // <!subteam^ID|@team>, <!date^1392734382^{date}|Feb 18th>: the label is the readable form.
    if (label) return label;
    return `@${name.split('^')[0]}`;
  }
  if (target.startsWith('@')) return `@${label ?? target.slice(1)}`;
  if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
  if (/^(?:https?|ftp):\/\//i.test(target)) return maskedLink(label, decodeEntities(target));
  if (/^(?:mailto|tel):/i.test(target)) return label ?? decodeEntities(target.replace(/^(?:mailto|tel):/i, ''));
  return undefined;
}

/**
 * Slack mrkdwn to plain text: `*bold*`, `_italic_` and `~strike~` lose their
 * markers, `<url|label>` becomes "[label](url)" (a masked
 * link: the card shows the label as a link, plain text keeps the address), `<url>` the URL, `<!here>` "@here",
 * `<@U1|ann>` "@ann", `<#C1|ops>` "#ops", known `:shortcodes:` their emoji, and
 * Slack's `&lt; &gt; &amp;` their characters. Code spans are left as written.
 */
export function mrkdwnToText(s: string): string {
  let out = '';
  let last = 0;
  for (const m of s.matchAll(/<([^<>\n]{1,2500})>/g)) {
    const replaced = token(m[1]!);
    if (replaced === undefined) continue;
    out += plainSegment(s.slice(last, m.index)) + replaced;
    last = m.index + m[0].length;
  }
  return out + plainSegment(s.slice(last));
}
