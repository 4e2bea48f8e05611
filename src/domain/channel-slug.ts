/**
 * The channel-slug rule, in one place for the use case (accounts.ts, which the CLI goes through) and
 * the dashboard's form: lower-case letters, digits and dashes, 1 to 64 characters, no dash at either end.
 */
export const CHANNEL_SLUG_RE = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export function isChannelSlug(slug: string): boolean {
  return CHANNEL_SLUG_RE.test(slug);
}

/** The slug a channel gets when none is given: its name, accents dropped, runs of other characters as one dash. */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 64)
    .replace(/-+$/, '');
  return slug || 'channel';
}
