import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * The common `:shortcode:` names, from emojibase-data (a kept data package,
 * refreshed with each Unicode release): GitHub's set (gemoji) and Slack's
 * (iamcal's emoji-data, which Slack uses). GitHub's name wins where the two
 * disagree on a character; the spec's own names (emoji.ts) win over both.
 *
 * Loaded on the first look-up of a name that is not one of the spec's, so a
 * service whose senders never use one never reads the files, and the
 * webhook's hot path (an emoji character, a spec name) never touches them.
 * About 4,000 names; the parsed files are dropped once the map is built.
 */
let names: ReadonlyMap<string, string> | undefined;

/** Emojibase's shortcode files: hexcode (code points joined by '-') to one name or several. */
type ShortcodeFile = Record<string, string | string[]>;
/** The part of emojibase's compact data used here: each emoji's hexcode and its fully-qualified character. */
type CompactEmoji = { hexcode: string; unicode: string; skins?: { hexcode: string; unicode: string }[] };

function load(): ReadonlyMap<string, string> {
  const require = createRequire(import.meta.url);
  const read = <T>(file: string): T => JSON.parse(readFileSync(require.resolve(`emojibase-data/${file}`), 'utf8')) as T;
  const characters = new Map<string, string>();
  for (const e of read<CompactEmoji[]>('en/compact.json')) {
    characters.set(e.hexcode, bare(e.unicode));
    for (const s of e.skins ?? []) characters.set(s.hexcode, bare(s.unicode));
  }
  const map = new Map<string, string>();
  // First set wins: GitHub's, then Slack's.
  for (const file of ['en/shortcodes/github.json', 'en/shortcodes/iamcal.json']) {
    for (const [hexcode, value] of Object.entries(read<ShortcodeFile>(file))) {
      const char = characters.get(hexcode) ?? fromHexcode(hexcode);
      for (const name of typeof value === 'string' ? [value] : value) {
        const key = name.toLowerCase();
        if (!map.has(key)) map.set(key, char);
      }
    }
  }
  return map;
}

/**
 * Emojibase writes a variation selector after every emoji character; after one that is drawn as an
 * emoji by default (✅, 👍) it is noise, and the spec's own characters are written without it.
 * Kept where it matters (☺️, ❤️: text characters unless followed by it).
 */
const bare = (unicode: string) => unicode.replace(/(\p{Emoji_Presentation})\uFE0F/gu, '$1');

const fromHexcode = (hexcode: string) => String.fromCodePoint(...hexcode.split('-').map((h) => parseInt(h, 16)));

/** The character of a common shortcode name (lower case, without colons), or undefined. */
export function commonShortcode(name: string): string | undefined {
  names ??= load();
  return names.get(name);
}
