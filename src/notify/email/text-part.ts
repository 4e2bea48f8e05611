import { oneLine, plainText } from '../../alert-card/format.js';
import type { AlertCardModel, ChatCardModel } from '../../alert-card/view-model.js';
import type { ChannelInfo } from './types.js';

/**
 * The text/plain parts, from the same view model as the HTML card, so both parts
 * always say the same thing. Sender text appears as written (no escaping in text).
 */

export function alertText(a: AlertCardModel, channel: ChannelInfo, phase: string | null, footer: string): string {
  const out: string[] = [];
  out.push(`${a.emoji} ${oneLine(a.title)}`);
  out.push(`${a.level}${phase ? ` · ${phase}` : ''} · ${channel.icon} #${channel.slug} · ${channel.workspaceName} · ${a.createdAt.text}`);
  out.push('');
  if (a.message) out.push(plainText(a.message), '');
  const fields = a.fields.flatMap((r) => r.fields);
  if (fields.length) {
    for (const f of fields) out.push(`${oneLine(f.label)}: ${plainText(f.value)}`);
    out.push('');
  }
  if (a.workflow) {
    out.push(`Run ${a.workflow.runId}: ${a.workflow.state}`);
    for (const s of a.workflow.steps) {
      out.push(`  ${s.symbol} ${oneLine(s.name)} — ${s.state}${s.duration ? ` · ${s.duration}` : ''}${s.info ? ` (${oneLine(s.info)})` : ''}`);
    }
    out.push('');
    if (a.workflow.errorTail) out.push('Error log (tail):', ...a.workflow.errorTail.split('\n').map((l) => `  ${l}`), '');
  }
  if (a.attachments.length) out.push('Attachments:', ...a.attachments.map((x) => `  ${x.name ?? x.kind}: ${x.url}`), '');
  if (a.link) out.push(`${a.link.text}: ${a.link.href}`, '');
  if (a.actor) {
    const who = oneLine(a.actor.details.length ? `${a.actor.name} (${a.actor.details.join(' · ')})` : a.actor.name);
    if (who) out.push(`By ${who}`);
  }
  if (a.source) out.push(`Source: ${oneLine(a.source)}`);
  out.push('', '-- ', footer);
  return out.join('\n');
}

export function chatText(m: ChatCardModel, channel: ChannelInfo, footer: string): string {
  return [
    `${m.author.name} in #${channel.slug} · ${channel.workspaceName} · ${m.createdAt.text}`,
    '',
    ...(m.replyTo ? [`> ${oneLine(`${m.replyTo.author}: ${m.replyTo.excerpt}`)}`] : []),
    m.message ? plainText(m.message) : '',
    ...m.attachments.map((x) => `Attachment: ${x.url}`),
    '',
    '-- ',
    footer,
  ].join('\n');
}
