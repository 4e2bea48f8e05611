import type { AlertLevel } from '../../domain/alert-rows.js';
import { clip, oneLine } from '../../alert-card/format.js';
import { FONT, TONES } from '../../alert-card/styling.js';
import { LEVEL_EMOJI, LEVEL_TONE } from '../../alert-card/view-model.js';
import { emailDocument } from './layout.js';
import type { RenderedEmail } from './types.js';

/** Listed one by one up to this many; the rest are counted, with a link to the feed. */
export const QUIET_DIGEST_LIST_MAX = 50;
const TITLE_MAX = 160;

export interface QuietDigestItem {
  level: AlertLevel;
  title: string;
  channelSlug: string;
  workspaceName: string;
  /** Local time of the alert in the person's zone (`23:14`). */
  when: string;
  url: string;
}

export interface QuietDigestInput {
  items: QuietDigestItem[];
  /** Held alerts resolved or deleted meanwhile: left out, counted. */
  leftOut: { resolved: number; deleted: number };
  /** `22:00–07:00 Europe/Berlin`, or null when the person cleared their quiet hours since. */
  windowText: string | null;
  recipientEmail: string;
  feedUrl: string;
  settingsUrl: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The one e-mail a person gets when their quiet hours end: what was held back, oldest first. */
export function renderQuietDigestEmail(d: QuietDigestInput): RenderedEmail {
  const count = d.items.length;
  const shown = d.items.slice(0, QUIET_DIGEST_LIST_MAX);
  const more = count - shown.length;
  const window = d.windowText ? ` (${d.windowText})` : '';
  const subject = `[Quiet hours] ${plural(count, 'alert')} while you were away${window}`;
  const intro = `${plural(count, 'alert')} arrived during your quiet hours${window} and did not notify you then.`;
  const skipped = [
    d.leftOut.resolved ? `${d.leftOut.resolved} resolved` : '',
    d.leftOut.deleted ? `${d.leftOut.deleted} deleted` : '',
  ].filter(Boolean);
  const leftOut = skipped.length ? `Left out: ${skipped.join(' and ')} meanwhile.` : '';
  const moreText = more > 0 ? `…and ${plural(more, 'more alert')}: ${d.feedUrl}` : '';
  const footerText = `You get this because you set quiet hours for ${d.recipientEmail}. Change or turn them off: ${d.settingsUrl}`;
  const text = [
    intro,
    ...(leftOut ? [leftOut] : []),
    '',
    ...shown.flatMap((i) => [`${LEVEL_EMOJI[i.level]} [${i.level}] #${i.channelSlug} — ${oneLine(clip(i.title, TITLE_MAX))} — ${i.when}`, `    ${i.url}`]),
    ...(moreText ? ['', moreText] : []),
    '',
    '-- ',
    footerText,
  ].join('\n');
  const card = (
    <table role="presentation" width="600" cellpadding={0} cellspacing={0} border={0} style="background-color:#ffffff;border:1px solid #e5e7eb;border-radius:8px;">
      <tr>
        <td style={`padding:20px 24px 8px;font-family:${FONT};`}>
          <h1 style="margin:0;font-size:20px;line-height:28px;color:#111827;">{plural(count, 'alert')} during your quiet hours</h1>
          <div style="font-size:14px;line-height:20px;color:#4b5563;">
            {intro} {leftOut}
          </div>
        </td>
      </tr>
      <tr>
        <td style={`padding:8px 24px 24px;font-family:${FONT};`}>
          <table role="presentation" width="100%" cellpadding={0} cellspacing={0} border={0}>
            {shown.map((i) => (
              <Row item={i} />
            ))}
          </table>
          {more > 0 ? (
            <div style="padding-top:12px;font-size:14px;color:#111827;">
              …and {plural(more, 'more alert')}: <a href={d.feedUrl}>open the feed</a>
            </div>
          ) : null}
        </td>
      </tr>
    </table>
  );
  const footer = (
    <>
      You get this because you set quiet hours for {d.recipientEmail}. <a href={d.settingsUrl}>Change or turn them off</a>.
    </>
  );
  return { subject, text, html: emailDocument({ title: subject, preheader: intro, footer, card }) };
}

function Row({ item: i }: { item: QuietDigestItem }) {
  const color = TONES[LEVEL_TONE[i.level]].color;
  return (
    <tr>
      <td width="6" style={`background-color:${color};font-size:0;line-height:0;`}>
        {'\u00a0'}
      </td>
      <td style={`padding:8px 12px;border-bottom:1px solid #e5e7eb;font-family:${FONT};`}>
        <div style="font-size:15px;line-height:20px;color:#111827;font-weight:700;">
          {LEVEL_EMOJI[i.level]} {clip(i.title, TITLE_MAX)}
        </div>
        <div style="font-size:12px;line-height:18px;color:#6b7280;">
          {i.level} · #{i.channelSlug} · {i.workspaceName} · {i.when} ·{' '}
          <a href={i.url} style={`color:${color};`}>
            Open #{i.channelSlug}
          </a>
        </div>
      </td>
    </tr>
  );
}
