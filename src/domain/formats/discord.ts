import { z } from 'zod';
import { AppError } from '../errors.js';
import type { AlertCommand } from './command.js';
import { levelFromColour } from './colour-level.js';
import { finishDraft, noContent } from './draft.js';
import { isPlainObject, larr, lbool, lobj, lstr } from './lenient.js';
import { firstLine, paragraphs } from './text.js';

const UrlHolder = lobj({ url: lstr });

const Embed = lobj({
  title: lstr,
  description: lstr,
  url: lstr,
  // Discord documents an integer; senders also send "#ff0000" or "0xff0000".
  color: z
    .unknown()
    .transform((v) => (typeof v === 'number' || typeof v === 'string' ? v : undefined))
    .optional(),
  fields: larr(lobj({ name: lstr, value: lstr, inline: lbool })),
  author: lobj({ name: lstr, url: lstr, icon_url: lstr }),
  footer: lobj({ text: lstr, icon_url: lstr }),
  image: UrlHolder,
  thumbnail: UrlHolder,
});

/** Discord's execute-webhook body (the JSON body, or the parsed `payload_json` part), read leniently. */
export const DiscordBody = z.object({
  content: lstr,
  username: lstr,
  avatar_url: lstr,
  embeds: larr(Embed),
});
export type DiscordBody = z.output<typeof DiscordBody>;

export interface DiscordMapOptions {
  /** Files sent as multipart `files[n]` parts: a message of files alone is still an alert. */
  fileCount?: number;
}

/**
 * Maps Discord's execute-webhook body. Title: the first embed's title, else
 * the first line of `content`. Message: `content`, the first embed's
 * description, then the other embeds' titles and descriptions, then footers.
 * Fields: every embed's fields. Level: the first embed colour by hue. Image
 * and thumbnail URLs become attachments. `username` is the source; the first
 * embed's author (else the webhook's username and avatar_url) is the actor.
 */
export function mapDiscord(rawBody: unknown, options: DiscordMapOptions = {}): AlertCommand {
  if (!isPlainObject(rawBody)) throw new AppError('invalid-payload', 'the body must be a JSON object');
  const body = DiscordBody.parse(rawBody);
  const content = body.content ?? '';
  const [first, ...others] = body.embeds;
  const fileCount = options.fileCount ?? 0;
  if (content.trim() === '' && body.embeds.length === 0 && fileCount === 0) {
    throw noContent('a Discord message needs content, embeds or files');
  }

  const message = paragraphs([
    content,
    first?.description,
    ...others.flatMap((e) => [e.title, e.description]),
    ...body.embeds.map((e) => e.footer?.text),
  ]);
  const fields = body.embeds.flatMap((e) =>
    e.fields.filter((f) => f.name !== undefined).map((f) => ({ label: f.name!, value: f.value ?? '', inline: f.inline ?? false })),
  );
  const title =
    first?.title?.trim() ||
    firstLine(content) ||
    firstLine(message) ||
    fields[0]?.label ||
    first?.author?.name?.trim() ||
    (fileCount > 0 ? (fileCount === 1 ? 'File' : `${fileCount} files`) : '');
  if (title === '') throw noContent('the Discord message has no text to show');

  const colour = body.embeds.find((e) => e.color !== undefined)?.color;
  const author = first?.author;
  const actor = author?.name || author?.icon_url
    ? { name: author.name, url: author.url, avatarUrl: author.icon_url }
    : body.avatar_url
      ? { name: body.username, avatarUrl: body.avatar_url }
      : undefined;

  const { payload, attachmentUrls } = finishDraft(
    {
      title,
      level: levelFromColour(colour),
      message,
      fields,
      linkUrl: first?.url,
      source: body.username,
      actor,
      metadata: { via: 'discord' },
    },
    body.embeds.flatMap((e) => [e.image?.url, e.thumbnail?.url]).filter((u): u is string => u !== undefined),
  );
  return { kind: 'alert', payload, attachmentUrls };
}
