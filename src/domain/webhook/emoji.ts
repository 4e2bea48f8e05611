/** The spec's recognised emoji names and their characters. */
const EMOJI_NAMES: Readonly<Record<string, string>> = {
  rocket: '🚀', siren: '🚨', warning: '⚠️', check: '✅', cross: '❌', fire: '🔥', bug: '🐛', zap: '⚡',
  bell: '🔔', tada: '🎉', sparkles: '✨', envelope: '✉️', chat: '💬', phone: '📞', megaphone: '📣',
  wave: '👋', eyes: '👀', heart: '❤️', thumbsup: '👍', office: '🏢', door: '🚪', house: '🏠',
  factory: '🏭', lock: '🔒', unlock: '🔓', key: '🔑', link: '🔗', package: '📦', gear: '⚙️',
  wrench: '🔧', shield: '🛡️', money: '💰', chart: '📈', clock: '🕐', hourglass: '⏳', flag: '🚩',
  star: '⭐', target: '🎯', pin: '📌', tag: '🏷️', computer: '💻', server: '🖥️', database: '🗄️',
  cloud: '☁️', bulb: '💡', gem: '💎', anchor: '⚓', pick: '⛏️', bank: '🏦',
};

export const EMOJI_MAX_CHARS = 10;

const PICTOGRAPHIC = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u;
/** Emoji only: RGI sequences (flags, ZWJ families, keycaps) or pictographs with an optional VS16. */
// Built with new RegExp: TypeScript only accepts a /v literal when targeting ES2024 (Node 20 runs it).
const ONLY_EMOJI = new RegExp('^(?:\\p{RGI_Emoji}|\\p{Extended_Pictographic}\\uFE0F?)+$', 'v');
/** Longer input is refused before it is split into characters (names are at most 11 characters). */
const MAX_INPUT = 64;

export type EmojiResult = { ok: true; emoji: string } | { ok: false; reason: 'too-long' | 'not-emoji' };

/**
 * Resolves the webhook's `emoji`: an emoji character is kept; a recognised name
 * or `:name:` shortcode becomes its character (never rejected for length:
 * `:megaphone:` is 11 characters); an unknown name is dropped rather than shown
 * as text. Only raw emoji text longer than 10 characters is an error.
 */
export function resolveEmoji(input: string): EmojiResult {
  const trimmed = input.trim();
  if (trimmed === '') return { ok: true, emoji: '' };
  if (trimmed.length > MAX_INPUT) return { ok: false, reason: 'too-long' };
  if (PICTOGRAPHIC.test(trimmed)) {
    if (!ONLY_EMOJI.test(trimmed)) return { ok: false, reason: 'not-emoji' }; // "🚀 deploy": no literal text
    return [...trimmed].length > EMOJI_MAX_CHARS ? { ok: false, reason: 'too-long' } : { ok: true, emoji: trimmed };
  }
  const name = trimmed.replace(/^:/, '').replace(/:$/, '').toLowerCase();
  return { ok: true, emoji: EMOJI_NAMES[name] ?? '' };
}
