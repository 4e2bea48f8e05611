import type { HighlightedText } from './alert-store.js';
import { escapeHtml } from '../lib/html.js';

/**
 * A highlighted text as HTML: every character escaped (nothing a sender
 * writes becomes markup), the found words wrapped in `<mark>`. For the
 * dashboard's search results; the API returns no highlights.
 */
export function highlightHtml(h: HighlightedText): string {
  let html = '';
  let at = 0;
  for (const [start, end] of h.ranges) {
    if (start < at || end > h.text.length) continue;
    html += `${escapeHtml(h.text.slice(at, start))}<mark>${escapeHtml(h.text.slice(start, end))}</mark>`;
    at = end;
  }
  return html + escapeHtml(h.text.slice(at));
}
