/**
 * Chat text rules shared by the bridge and its tests: mention resolution
 * (the spec's "message text with mentions resolved to names"), reply excerpts
 * and snowflake ordering.
 */

/** Looks names up for mention resolution; undefined when the id is unknown. */
export interface MentionLookup {
  /** Server display name of a user or member. */
  user(id: string): string | undefined;
  role(id: string): string | undefined;
  channel(id: string): string | undefined;
}

/** Discord's markup for mentions and custom emoji (ids are snowflakes). */
const TOKEN = /<(@!?|@&|#)(\d{15,21})>|<a?:(\w{1,32}):\d{15,21}>|<\/([-\w ]{1,100}):\d{15,21}>|<t:(-?\d{1,13})(?::[tTdDfFR])?>/g;

/**
 * `<@id>`/`<@!id>` → `@DisplayName`, `<@&id>` → `@RoleName`, `<#id>` → `#channel`,
 * `<:name:id>`/`<a:name:id>` → `:name:`, `</cmd:id>` → `/cmd`, `<t:unix:style>` →
 * the ISO 8601 UTC time. `@everyone`/`@here` are plain text and stay. Unknown ids
 * read `@unknown-user`, `@deleted-role`, `#deleted-channel` (never the raw id).
 */
export function resolveMentions(content: string, lookup: MentionLookup): string {
  if (!content.includes('<')) return content;
  return content.replace(TOKEN, (_m, kind: string | undefined, id: string | undefined, emoji?: string, command?: string, unix?: string) => {
    if (emoji !== undefined) return `:${emoji}:`;
    if (command !== undefined) return `/${command}`;
    if (unix !== undefined) {
      const d = new Date(Number(unix) * 1000);
      return Number.isNaN(d.getTime()) ? _m : d.toISOString();
    }
    if (kind === '#') return `#${lookup.channel(id!) ?? 'deleted-channel'}`;
    if (kind === '@&') return `@${lookup.role(id!) ?? 'deleted-role'}`;
    return `@${lookup.user(id!) ?? 'unknown-user'}`;
  });
}

const EXCERPT_MAX = 100;

/**
 * A one-line excerpt of at most `max` characters (the ellipsis included), cut
 * on a word boundary when a word boundary exists in the kept part.
 */
export function excerpt(text: string | null, max = EXCERPT_MAX): string {
  if (!text) return '';
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const room = max - 1; // one character for the ellipsis
  const space = flat.lastIndexOf(' ', room); // a space at `room` means the word before it is whole
  let cut = space > 0 ? flat.slice(0, space) : flat.slice(0, room);
  // Never split a surrogate pair (an emoji) in a hard cut.
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${cut.replace(/[\s,;:.-]+$/, '')}…`;
}

/** A Discord snowflake: a decimal 64-bit id (17-20 digits for any real object). */
export function isSnowflake(value: string): boolean {
  return /^\d{17,20}$/.test(value) && BigInt(value) < 1n << 64n;
}

/** Numeric order of two snowflakes (decimal strings without leading zeros). */
export function compareSnowflakes(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function maxSnowflake(a: string | null, b: string | null): string | null {
  if (a === null) return b;
  if (b === null) return a;
  return compareSnowflakes(a, b) >= 0 ? a : b;
}
