import { commonShortcode } from './emoji-shortcodes.js';

/**
 * The spec's recognised emoji names and their characters. A Map, not an object
 * literal: the name comes from the sender, and an object would also "know"
 * `constructor`, `__proto__` or `toString` through its prototype.
 */
const EMOJI_NAMES: ReadonlyMap<string, string> = new Map(
  Object.entries({
    rocket: '🚀', siren: '🚨', warning: '⚠️', check: '✅', cross: '❌', fire: '🔥', bug: '🐛', zap: '⚡',
    bell: '🔔', tada: '🎉', sparkles: '✨', envelope: '✉️', chat: '💬', phone: '📞', megaphone: '📣',
    wave: '👋', eyes: '👀', heart: '❤️', thumbsup: '👍', office: '🏢', door: '🚪', house: '🏠',
    factory: '🏭', lock: '🔒', unlock: '🔓', key: '🔑', link: '🔗', package: '📦', gear: '⚙️',
    wrench: '🔧', shield: '🛡️', money: '💰', chart: '📈', clock: '🕐', hourglass: '⏳', flag: '🚩',
    star: '⭐', target: '🎯', pin: '📌', tag: '🏷️', computer: '💻', server: '🖥️', database: '🗄️',
    cloud: '☁️', bulb: '💡', gem: '💎', anchor: '⚓', pick: '⛏️', bank: '🏦',
  }),
);

/** The spec's limit on `emoji`, in characters (code points, so 🔥 counts once). */
export const EMOJI_MAX_CHARS = 10;

/** Longest `:shortcode:` translated, colons included (Slack's longest names are about 45 characters). */
export const EMOJI_MAX_SHORTCODE_CHARS = 64;

const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;
/** Emoji only: RGI sequences (flags, ZWJ families, keycaps) or pictographs with an optional VS16. */
// Built with new RegExp: TypeScript only accepts a /v literal when targeting ES2024 (Node 20 runs it).
const ONLY_EMOJI = new RegExp('^(?:\\p{RGI_Emoji}|\\p{Extended_Pictographic}\\uFE0F?)+$', 'v');
/**
 * The `:name:` form other tools use (Slack, GitHub): letters, digits, `_`, `+`, `-` between colons,
 * optionally followed by Slack's skin tone (`:thumbsup::skin-tone-3:`).
 */
const SHORTCODE = /^:([\w+-]+):(?::skin-tone-([2-6]):)?$/;
/** Skin tone N (2 to 6) is the modifier U+1F3FB + N - 2, shown only on a character that takes one. */
const MODIFIABLE = /^\p{Emoji_Modifier_Base}\uFE0F?$/u;
const withTone = (emoji: string, tone: string | undefined) =>
  tone === undefined || !MODIFIABLE.test(emoji) ? emoji : `${emoji.replace(/\uFE0F$/, '')}${String.fromCodePoint(0x1f3fb + Number(tone) - 2)}`;

export type EmojiResult = { ok: true; emoji: string } | { ok: false; reason: 'too-long' | 'not-emoji' };

const charCount = (s: string) => [...s].length;

/** The spec's character for a name (any case, no colons), or undefined. */
export const specEmoji = (name: string): string | undefined => EMOJI_NAMES.get(name.toLowerCase());

/**
 * The character of a `:shortcode:`'s name (any case, no colons): the spec's
 * names first (`chart` stays 📈, `phone` 📞), then the common GitHub and
 * Slack names (`rotating_light` 🚨); undefined when neither knows it.
 */
export function shortcodeEmoji(name: string): string | undefined {
  const lower = name.toLowerCase();
  return EMOJI_NAMES.get(lower) ?? commonShortcode(lower);
}

/**
 * Resolves the webhook's `emoji`:
 * - emoji characters are kept (at most EMOJI_MAX_CHARS, emoji only);
 * - a recognised name, with or without colons, becomes its character, whatever
 *   its length (`:megaphone:` is 11 characters);
 * - a `:shortcode:` of the common GitHub / Slack set (`:rotating_light:`)
 *   becomes its character, whatever its length up to EMOJI_MAX_SHORTCODE_CHARS;
 *   an unknown one is dropped: it is a name from another tool, not text to show;
 * - any other text is an unknown name: dropped when it fits the spec's limit,
 *   refused like any other over-long field when it does not (a bare
 *   `rotating_light` too: without colons only the spec's names are names).
 */
export function resolveEmoji(input: string): EmojiResult {
  const trimmed = input.trim();
  if (trimmed === '') return { ok: true, emoji: '' };
  // Checked on UTF-16 length before anything splits the string into characters.
  if (trimmed.length > EMOJI_MAX_SHORTCODE_CHARS) return { ok: false, reason: 'too-long' };
  if (PICTOGRAPHIC.test(trimmed)) {
    if (!ONLY_EMOJI.test(trimmed)) return { ok: false, reason: 'not-emoji' }; // "🚀 deploy": no literal text
    return charCount(trimmed) > EMOJI_MAX_CHARS ? { ok: false, reason: 'too-long' } : { ok: true, emoji: trimmed };
  }
  // A stray colon on one side (`:rocket`) still names the emoji.
  const known = EMOJI_NAMES.get(trimmed.replace(/^:/, '').replace(/:$/, '').toLowerCase());
  if (known !== undefined) return { ok: true, emoji: known };
  const shortcode = SHORTCODE.exec(trimmed);
  if (shortcode) {
    const emoji = shortcodeEmoji(shortcode[1]!);
    return { ok: true, emoji: emoji === undefined ? '' : withTone(emoji, shortcode[2]) };
  }
  return charCount(trimmed) > EMOJI_MAX_CHARS ? { ok: false, reason: 'too-long' } : { ok: true, emoji: '' };
}
