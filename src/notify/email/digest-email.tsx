import type { AlertView } from '../../domain/alert-view.js';
import type { NotifyLevel } from '../../domain/notification-preferences.js';
import { clip, formatSpan, oneLine, plainText } from '../../alert-card/format.js';
import { Accent, Section } from '../../alert-card/parts.js';
import { FONT, TONES, look } from '../../alert-card/styling.js';
import { toCardModel, type Level, type Tone } from '../../alert-card/view-model.js';
import { emailFooter } from './footer.js';
import { emailDocument } from './layout.js';
import type { ChannelInfo, EmailLinks, RenderedEmail } from './types.js';

const DETAIL_MAX = 200;

export interface DigestInput {
  channel: ChannelInfo;
  alerts: AlertView[];
  windowStart: number;
  windowEnd: number;
  floodLimit: number;
  recipientLevel: NotifyLevel;
  recipientEmail: string;
  links?: EmailLinks;
}

/** One line of the digest, from the card's view model (a chat message reads as "author: text"). */
interface DigestItem {
  level: Level;
  tone: Tone;
  emoji: string;
  title: string;
  detail: string;
  when: string;
  link: { href: string; text: string } | null;
  runState: string | null;
}

function digestItem(alert: AlertView): DigestItem {
  const c = toCardModel(alert);
  if (c.kind === 'chat') {
    const body = c.message ? plainText(c.message) : '(attachment)';
    return { level: 'INFO', tone: 'info', emoji: '💬', title: `${c.author.name}: ${body}`, detail: '', when: c.createdAt.text, link: null, runState: null };
  }
  return {
    level: c.level,
    tone: c.tone,
    emoji: c.emoji,
    title: c.title,
    detail: c.message ? clip(oneLine(plainText(c.message)), DETAIL_MAX) : '',
    when: c.createdAt.text,
    link: c.link,
    runState: c.workflow?.state ?? null,
  };
}

/** One e-mail listing the alerts folded while the flood guard held a recipient's channel back. */
export function renderDigestEmail(digest: DigestInput): RenderedEmail {
  const count = digest.alerts.length;
  const alerts = `${count} more alert${count === 1 ? '' : 's'}`;
  const from = new Date(digest.windowStart).toISOString().slice(11, 16);
  const to = new Date(digest.windowEnd).toISOString().slice(11, 16);
  const subject = `[Digest] #${digest.channel.slug} — ${alerts} (${from}–${to} UTC)`;
  const footer = emailFooter(digest.channel, digest.recipientLevel, digest.recipientEmail, digest.links);
  const intro = `More than ${digest.floodLimit} alerts arrived in #${digest.channel.slug} within ${formatSpan(digest.windowEnd - digest.windowStart)}; the rest are listed here instead of one e-mail each.`;
  const items = digest.alerts.map(digestItem);
  const text = [
    intro,
    '',
    ...items.flatMap((i) => [
      `${i.emoji} [${i.level}] ${oneLine(i.title)}${i.runState ? ` (run ${i.runState})` : ''} — ${i.when}`,
      ...(i.detail ? [`    ${i.detail}`] : []),
      ...(i.link ? [`    ${i.link.text}: ${i.link.href}`] : []),
    ]),
    '',
    '-- ',
    footer.text,
  ].join('\n');
  const card = (
    <table role="presentation" width="600" cellpadding={0} cellspacing={0} border={0} {...look('inline', 'card')}>
      <Accent styling="inline" tone="neutral" />
      <Section styling="inline" part="headerSection">
        <div {...look('inline', 'headerMeta')}>
          {digest.channel.icon} #{digest.channel.slug} · {digest.channel.workspaceName}
        </div>
      </Section>
      <Section styling="inline" part="titleSection">
        <h1 {...look('inline', 'title')}>
          {alerts} in #{digest.channel.slug}
        </h1>
      </Section>
      <Section styling="inline" part="section">
        <div style="font-size:14px;color:#4b5563;">{intro}</div>
      </Section>
      <tr>
        <td style={`padding:0 24px 24px;font-family:${FONT};font-size:15px;line-height:22px;color:#111827;`}>
          <table role="presentation" width="100%" cellpadding={0} cellspacing={0} border={0}>
            {items.map((i) => (
              <DigestRow item={i} />
            ))}
          </table>
        </td>
      </tr>
    </table>
  );
  return { subject, text, html: emailDocument({ title: subject, preheader: intro, footer: footer.html, card }) };
}

function DigestRow({ item: i }: { item: DigestItem }) {
  const color = TONES[i.tone].color;
  return (
    <tr>
      <td width="6" style={`background-color:${color};font-size:0;line-height:0;`}>
        {'\u00a0'}
      </td>
      <td style={`padding:8px 12px;border-bottom:1px solid #e5e7eb;font-family:${FONT};`}>
        <div style="font-size:15px;line-height:20px;color:#111827;font-weight:700;">
          {i.emoji} {i.title}
          {i.runState ? (
            <>
              {' '}
              <span style="font-weight:400;color:#6b7280;">(run {i.runState})</span>
            </>
          ) : null}
        </div>
        <div style="font-size:12px;line-height:18px;color:#6b7280;">
          {i.level} · {i.when}
          {i.link ? (
            <>
              {' · '}
              <a href={i.link.href} style={`color:${color};`}>
                {i.link.text}
              </a>
            </>
          ) : null}
        </div>
        {i.detail ? <div style="font-size:13px;line-height:18px;color:#374151;">{i.detail}</div> : null}
      </td>
    </tr>
  );
}
