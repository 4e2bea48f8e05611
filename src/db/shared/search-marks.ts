import type { HighlightedText } from '../../domain/alert-store.js';

/**
 * Marks around found tokens in both engines' highlights and snippets: private-use characters, which
 * a text may contain but practically never does; a text that does is returned without ranges rather
 * than with wrong ones.
 */
export const MARK_OPEN = '\uE000';
export const MARK_CLOSE = '\uE001';
export const ELLIPSIS = '…';

/** Turns marked text into plain text and [start, end) ranges; a text that itself holds a mark character gets no ranges. */
export function unmark(marked: string, raw: string): HighlightedText {
  if (raw.includes(MARK_OPEN) || raw.includes(MARK_CLOSE)) return { text: marked.replaceAll(MARK_OPEN, '').replaceAll(MARK_CLOSE, ''), ranges: [] };
  let text = '';
  const ranges: [number, number][] = [];
  let start = -1;
  for (const part of marked.split(/([\uE000\uE001])/)) {
    if (part === MARK_OPEN) start = text.length;
    else if (part === MARK_CLOSE) {
      if (start >= 0 && text.length > start) ranges.push([start, text.length]);
      start = -1;
    } else text += part;
  }
  return { text, ranges };
}
