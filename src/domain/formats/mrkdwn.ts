import { resolveEmoji } from '../webhook/emoji.js';

/**
 * Slack shortcodes that alerting tools use most and that are not among the
 * spec's emoji names (which src/domain/webhook/emoji.ts resolves). Anything
 * else stays as its literal `:name:` text: "12:30:45" must survive.
 */
const SLACK_ALIASES: Readonly<Record<string, string>> = {
  rotating_light: '🚨', white_check_mark: '✅', heavy_check_mark: '✔️', x: '❌', red_circle: '🔴',
  large_green_circle: '🟢', green_circle: '🟢', large_yellow_circle: '🟡', yellow_circle: '🟡',
  large_blue_circle: '🔵', blue_circle: '🔵', white_circle: '⚪', information_source: 'ℹ️', exclamation: '❗',
  heavy_exclamation_mark: '❗', bangbang: '‼️', boom: '💥', no_entry: '⛔', no_entry_sign: '🚫', sos: '🆘',
  '+1': '👍', '-1': '👎', thumbsdown: '👎', construction: '🚧', hammer_and_wrench: '🛠️', mag: '🔍',
  green_heart: '💚', broken_heart: '💔', skull: '💀', alarm_clock: '⏰', stopwatch: '⏱️',
  hourglass_flowing_sand: '⏳', ship: '🚢', chart_with_upwards_trend: '📈', chart_with_downwards_trend: '📉',
  arrow_up: '⬆️', arrow_down: '⬇️', large_orange_diamond: '🔶', heavy_multiplication_x: '✖️', new: '🆕',
  tada: '🎉', recycle: '♻️', memo: '📝', calendar: '📅',
};

/** The character for a `name` (without colons), or undefined when it is not known. */
export function shortcodeEmoji(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (Object.hasOwn(SLACK_ALIASES, lower)) return SLACK_ALIASES[lower];
  const r = resolveEmoji(lower);
  return r.ok && r.emoji !== '' ? r.emoji : undefined;
}

/** Replaces known `:shortcode:`s with their emoji; unknown ones stay as written. */
export function replaceShortcodes(s: string): string {
  return s.replace(/:([a-z0-9_+-]{1,40}):/gi, (all, name: string) => shortcodeEmoji(name) ?? all);
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
  if (/^(?:https?|ftp):\/\//i.test(target)) {
    const url = decodeEntities(target);
    return label && label !== url ? `${label} (${url})` : url;
  }
  if (/^(?:mailto|tel):/i.test(target)) return label ?? decodeEntities(target.replace(/^(?:mailto|tel):/i, ''));
  return undefined;
}

/**
 * Slack mrkdwn to plain text: `*bold*`, `_italic_` and `~strike~` lose their
 * markers, `<url|label>` becomes "label (url)" (a plain-text alert would
 * otherwise lose the address), `<url>` the URL, `<!here>` "@here",
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
