import type { SearchTermInput } from './alert-store.js';
import { AppError, type ValidationIssue } from './errors.js';

/** The search limits (README "Search"): a longer query is a 400, never a slow one. */
export const SEARCH_LIMITS = { maxQueryChars: 256, maxTerms: 16 } as const;

/** `prefix`: written with a trailing `*`; `phrase`: written in quotes (its words side by side, in order). */
export type SearchTerm = SearchTermInput;

/**
 * Index tokens are runs of letters, digits and private-use characters (the
 * unicode61 tokenizer's classes): a term with none of them would match
 * nothing, or — an empty quoted string — could be read as a syntax error.
 */
const HAS_TOKEN_CHAR = /[\p{L}\p{N}\p{Co}]/u;

function invalid(message: string): AppError {
  const issue: ValidationIssue = { code: 'invalid_value', message, path: ['q'] };
  return new AppError('invalid-query', message, { details: [issue] });
}

/**
 * The user's query syntax: whitespace-separated words, all required; a word
 * ending in `*` is a prefix; `"…"` is a phrase (an unclosed quote runs to the
 * end). Every other character is literal text: there is no operator, so
 * `title:x`, `NEAR(`, `-x`, `^x`, `OR` are words to find like any other.
 * Terms without a letter or digit (a lone `*`, `--`, an emoji) are dropped; the
 * result may be empty (the search then finds nothing).
 */
export function parseSearchQuery(q: string): SearchTerm[] {
  if (q.trim() === '') throw invalid('q must contain at least one word');
  if ([...q].length > SEARCH_LIMITS.maxQueryChars) throw invalid(`q must be at most ${SEARCH_LIMITS.maxQueryChars} characters`);
  const terms: SearchTerm[] = [];
  // Control characters separate words like spaces do; a NUL would otherwise end the SQL string early.
  q = q.replace(/\p{Cc}/gu, ' ');
  const push = (raw: string, phrase: boolean) => {
    let text = raw;
    let prefix = false;
    if (!phrase && text.endsWith('*')) {
      text = text.replace(/\*+$/, '');
      prefix = true;
    }
    if (HAS_TOKEN_CHAR.test(text)) terms.push({ text, prefix, phrase });
  };
  // Either a quoted run (closed or not) or a run of non-space, non-quote characters.
  for (const m of q.matchAll(/"([^"]*)"?|[^\s"]+/g)) {
    if (m[1] !== undefined) push(m[1], true);
    else push(m[0], false);
  }
  if (terms.length > SEARCH_LIMITS.maxTerms) throw invalid(`q must have at most ${SEARCH_LIMITS.maxTerms} words or phrases`);
  return terms;
}
