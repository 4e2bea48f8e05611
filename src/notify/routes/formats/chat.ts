import { escapeHtml } from '../../../lib/html.js';
import { LEVEL_COLOR, cut, eventWord, type RouteMessage } from '../message.js';

/** Slack incoming webhook: Block Kit (header, fields, message, image, link button, context). https://api.slack.com/block-kit */
export function slackBody(m: RouteMessage): unknown {
  const mrkdwn = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const blocks: unknown[] = [{ type: 'header', text: { type: 'plain_text', text: cut(`${m.emoji} ${m.title}`, 150), emoji: true } }];
  if (m.message) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: cut(mrkdwn(m.message), 3000) } });
  if (m.fields.length > 0) {
    blocks.push({ type: 'section', fields: m.fields.slice(0, 10).map((f) => ({ type: 'mrkdwn', text: cut(`*${mrkdwn(f.label)}*\n${mrkdwn(f.value)}`, 2000) })) });
  }
  if (m.imageUrl) blocks.push({ type: 'image', image_url: m.imageUrl, alt_text: cut(m.title, 2000) });
  const buttons = [{ type: 'button', text: { type: 'plain_text', text: 'Open in Alertbridge' }, url: m.openUrl }];
  if (m.linkUrl) buttons.unshift({ type: 'button', text: { type: 'plain_text', text: cut(m.linkText ?? 'Open link', 75) }, url: m.linkUrl });
  blocks.push({ type: 'actions', elements: buttons });
  const context = [`${eventWord(m.event)} · ${m.level}`, `#${m.channelName}`, ...(m.source ? [m.source] : [])].join(' · ');
  blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: mrkdwn(context) }] });
  // `text` is the notification's fallback (and what screen readers announce).
  return { text: cut(`${m.emoji} ${m.title}`, 3000), blocks };
}

/** Discord webhook: one embed in the level's colour. https://discord.com/developers/docs/resources/webhook#execute-webhook */
export function discordBody(m: RouteMessage): unknown {
  const embed: Record<string, unknown> = {
    title: cut(`${m.emoji} ${m.title}`, 256),
    url: m.linkUrl ?? m.openUrl,
    color: LEVEL_COLOR[m.level],
    timestamp: new Date(m.at * 1000).toISOString(),
    footer: { text: cut([`${eventWord(m.event)} · ${m.level}`, `#${m.channelName}`, ...(m.source ? [m.source] : [])].join(' · '), 2048) },
  };
  if (m.message) embed.description = cut(m.message, 4096);
  if (m.fields.length > 0) embed.fields = m.fields.slice(0, 25).map((f) => ({ name: cut(f.label, 256) || '\u200b', value: cut(f.value, 1024) || '\u200b', inline: f.inline }));
  if (m.imageUrl) embed.image = { url: m.imageUrl };
  // No pings from alert text: allowed_mentions empty.
  return { embeds: [embed], allowed_mentions: { parse: [] } };
}

/** Teams Workflows webhook: a message carrying one Adaptive Card 1.4. https://adaptivecards.io/explorer/ */
export function teamsBody(m: RouteMessage): unknown {
  const body: unknown[] = [
    { type: 'TextBlock', text: cut(`${m.emoji} ${m.title}`, 500), weight: 'Bolder', size: 'Medium', wrap: true, color: m.level === 'ERROR' ? 'Attention' : m.level === 'WARNING' ? 'Warning' : m.level === 'SUCCESS' ? 'Good' : 'Default' },
    { type: 'TextBlock', text: `${eventWord(m.event)} · ${m.level} · #${m.channelName}${m.source ? ` · ${m.source}` : ''}`, isSubtle: true, spacing: 'None', wrap: true },
  ];
  if (m.message) body.push({ type: 'TextBlock', text: cut(m.message, 4000), wrap: true });
  if (m.fields.length > 0) body.push({ type: 'FactSet', facts: m.fields.slice(0, 20).map((f) => ({ title: cut(f.label, 200), value: cut(f.value, 1000) })) });
  if (m.imageUrl) body.push({ type: 'Image', url: m.imageUrl, altText: cut(m.title, 200) });
  const actions: unknown[] = [{ type: 'Action.OpenUrl', title: 'Open in Alertbridge', url: m.openUrl }];
  if (m.linkUrl) actions.unshift({ type: 'Action.OpenUrl', title: cut(m.linkText ?? 'Open link', 100), url: m.linkUrl });
  return {
    type: 'message',
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4', body, actions },
    }],
  };
}

/** Telegram's HTML subset (https://core.telegram.org/bots/api#html-style), as text or a photo caption. */
export function telegramHtml(m: RouteMessage, max: number): string {
  const lines = [`<b>${escapeHtml(`${m.emoji} ${m.title}`)}</b>`];
  if (m.message) lines.push(escapeHtml(cut(m.message, Math.max(0, max / 2))));
  for (const f of m.fields.slice(0, 10)) lines.push(`<b>${escapeHtml(f.label)}:</b> ${escapeHtml(f.value)}`);
  if (m.linkUrl) lines.push(`<a href="${escapeHtml(m.linkUrl)}">${escapeHtml(m.linkText ?? 'Open link')}</a>`);
  lines.push(`<i>${escapeHtml(`${eventWord(m.event)} · ${m.level} · #${m.channelName}`)}</i>`);
  const html = lines.join('\n');
  return html.length > max ? `<b>${escapeHtml(cut(`${m.emoji} ${m.title}`, max - 40))}</b>` : html;
}

/** Matrix m.room.message: plain `body` and `formatted_body` (org.matrix.custom.html). https://spec.matrix.org/latest/client-server-api/#mroommessage-msgtypes */
export function matrixContent(m: RouteMessage): { msgtype: 'm.text'; body: string; format: 'org.matrix.custom.html'; formatted_body: string } {
  const plain = [`${m.emoji} ${m.title}`, ...(m.message ? [m.message] : []), ...m.fields.map((f) => `${f.label}: ${f.value}`), ...(m.linkUrl ? [m.linkUrl] : []), `${eventWord(m.event)} · ${m.level} · #${m.channelName}`];
  const html = [
    `<h4>${escapeHtml(`${m.emoji} ${m.title}`)}</h4>`,
    ...(m.message ? [`<p>${escapeHtml(m.message)}</p>`] : []),
    ...(m.fields.length > 0 ? [`<ul>${m.fields.map((f) => `<li><b>${escapeHtml(f.label)}:</b> ${escapeHtml(f.value)}</li>`).join('')}</ul>`] : []),
    ...(m.linkUrl ? [`<p><a href="${escapeHtml(m.linkUrl)}">${escapeHtml(m.linkText ?? m.linkUrl)}</a></p>`] : []),
    `<p><i>${escapeHtml(`${eventWord(m.event)} · ${m.level} · #${m.channelName}`)}</i></p>`,
  ];
  return { msgtype: 'm.text', body: plain.join('\n'), format: 'org.matrix.custom.html', formatted_body: html.join('') };
}

const NTFY_PRIORITY: Record<RouteMessage['level'], string> = { INFO: '3', SUCCESS: '3', WARNING: '4', ERROR: '5' };
/** ntfy shows a tag that is an emoji short code as that emoji (https://docs.ntfy.sh/emojis/): the alert's emoji mapped back. */
const EMOJI_TAG = new Map(Object.entries({
  '🚨': 'rotating_light', '⚠️': 'warning', '✅': 'white_check_mark', '❌': 'x', '🔥': 'fire', '🚀': 'rocket', 'ℹ️': 'information_source',
  '🐛': 'bug', '📦': 'package', '🔔': 'bell', '💥': 'boom', '🎉': 'tada', '⏳': 'hourglass_flowing_sand', '🛑': 'stop_sign', '💾': 'floppy_disk',
}));

/** RFC 2047 for header values outside ASCII, which ntfy decodes (https://docs.ntfy.sh/publish/#message-title). */
const headerText = (s: string) => (/^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s, 'utf8').toString('base64')}?=`);

/** ntfy: the message as the body, the rest as headers (https://docs.ntfy.sh/publish/). */
export function ntfyRequest(m: RouteMessage): { headers: Record<string, string>; body: string } {
  const tag = EMOJI_TAG.get(m.emoji);
  const headers: Record<string, string> = {
    title: headerText(cut(m.title, 250)),
    priority: NTFY_PRIORITY[m.level],
    // Once each: a WARNING alert's ⚠️ is the tag `warning`, which is also the level's word (ntfy would show the emoji twice).
    tags: [...new Set([...(tag ? [tag] : []), m.level.toLowerCase(), eventWord(m.event).toLowerCase()])].join(','),
    click: m.linkUrl ?? m.openUrl,
    'content-type': 'text/plain; charset=utf-8',
  };
  if (m.imageUrl) headers.attach = m.imageUrl;
  const lines = [m.message ?? m.title, ...m.fields.map((f) => `${f.label}: ${f.value}`)];
  return { headers, body: cut(lines.join('\n'), 4000) };
}
