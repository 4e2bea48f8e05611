import type { NotificationKind } from '../domain/changes.js';
import type { AlertView, ChatAlert, Field, StandardAlert, WorkflowStep } from '../domain/alert-view.js';
import type { NotifyLevel } from './preferences.js';
import { esc } from '../lib/html.js';

/**
 * E-mail rendering of the alert card. HTML for mail clients means: tables for
 * layout, inline styles only (Gmail and Outlook drop <style> and most CSS
 * layout), no scripts, images by absolute URL. Every piece of sender text goes
 * through `esc` and every URL through `safeUrl` (http/https only).
 */

export interface ChannelInfo {
  name: string;
  slug: string;
  icon: string;
  workspaceName: string;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const LEVEL_STYLE = {
  INFO: { color: '#2563eb', tint: '#eff6ff', label: 'INFO', emoji: 'ℹ️' },
  SUCCESS: { color: '#16a34a', tint: '#f0fdf4', label: 'SUCCESS', emoji: '✅' },
  WARNING: { color: '#d97706', tint: '#fffbeb', label: 'WARNING', emoji: '⚠️' },
  ERROR: { color: '#dc2626', tint: '#fef2f2', label: 'ERROR', emoji: '🚨' },
} as const;

const STEP_STYLE: Record<WorkflowStep['state'], { symbol: string; color: string }> = {
  done: { symbol: '✓', color: '#16a34a' },
  failed: { symbol: '✗', color: '#dc2626' },
  running: { symbol: '●', color: '#2563eb' },
  pending: { symbol: '○', color: '#6b7280' },
  skipped: { symbol: '–', color: '#6b7280' },
};

/** The failed run's log tail: the END of the log is what explains the failure. */
const ERROR_TAIL_LINES = 40;
const ERROR_TAIL_CHARS = 4_000;
const SUBJECT_TITLE_MAX = 120;

const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
const MONO = "ui-monospace,SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace";

/** Only absolute http(s) URLs reach an href or src: no javascript:, data: or relative tricks. */
export function safeUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.toString() : null;
  } catch {
    return null;
  }
}

const oneLine = (s: string) => s.replace(/[\r\n\t]+/g, ' ').replace(/\s{2,}/g, ' ').trim();
const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const escMultiline = (s: string) => esc(s).replace(/\r?\n/g, '<br>');

export function formatSeconds(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '';
  if (seconds < 60) return `${+seconds.toFixed(seconds < 10 ? 1 : 0)}s`;
  const m = Math.floor(seconds / 60);
  const s = Math.round(seconds % 60);
  if (m < 60) return s ? `${m}m ${s}s` : `${m}m`;
  return `${Math.floor(m / 60)}h ${m % 60}m`;
}

/** A span of time in words, for prose: "30 seconds", "1 minute", "90 seconds", "2 hours". */
function formatSpan(ms: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  if (ms < 1000) return unit(Math.max(0, Math.round(ms)), 'millisecond');
  const s = Math.round(ms / 1000);
  if (s % 3600 === 0) return unit(s / 3600, 'hour');
  if (s % 60 === 0) return unit(s / 60, 'minute');
  return unit(s, 'second');
}

export function errorTail(error: string): string {
  const lines = error.replace(/\s+$/, '').split(/\r?\n/);
  let tail = lines.slice(-ERROR_TAIL_LINES).join('\n');
  if (tail.length > ERROR_TAIL_CHARS) tail = `…${tail.slice(-ERROR_TAIL_CHARS)}`;
  else if (lines.length > ERROR_TAIL_LINES) tail = `…\n${tail}`;
  return tail;
}

const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/**
 * Subjects lead with what an inbox scan needs: a bracketed tag (level, or the
 * run's phase), the channel, then the title.
 *   [ERROR] #alerts — Disk almost full on db-1
 *   [Started] #deploys — Deploy api      [Passed] / [Failed] when the run ends
 *   [Message] #support — Ana: the checkout page is blank
 */
export function subjectFor(alert: AlertView, channel: ChannelInfo, kind: NotificationKind): string {
  const where = `#${channel.slug}`;
  if (!('title' in alert)) {
    const body = alert.message ? oneLine(alert.message) : alert.attachments.length ? '(attachment)' : '';
    return `[Message] ${where} — ${clip(oneLine(`${alert.author.name}: ${body}`), SUBJECT_TITLE_MAX)}`;
  }
  const title = clip(oneLine(alert.title), SUBJECT_TITLE_MAX);
  if (alert.workflow && kind !== 'alert.created') {
    const tag = kind === 'workflow.started' ? 'Started' : alert.workflow.state === 'failed' ? 'Failed' : alert.workflow.state === 'passed' ? 'Passed' : 'Update';
    return `[${tag}] ${where} — ${title}`;
  }
  return `[${alert.level}] ${where} — ${title}`;
}

export interface AlertEmailInput {
  alert: AlertView;
  channel: ChannelInfo;
  kind: NotificationKind;
  recipientLevel: NotifyLevel;
  /** Named in the footer's command, so an administrator can run it as it stands. */
  recipientEmail: string;
}

export function renderAlertEmail(input: AlertEmailInput): RenderedEmail {
  const subject = subjectFor(input.alert, input.channel, input.kind);
  const footer = footerText(input.channel, input.recipientLevel, input.recipientEmail);
  if (!('title' in input.alert)) return renderChat(input.alert, input.channel, subject, footer);
  const a = input.alert;
  return { subject, text: cardText(a, input.channel, input.kind, footer), html: page(subject, preheader(a), cardHtml(a, input.channel, input.kind), footer) };
}

/**
 * Says why this arrived and how to change it: preferences are set by an
 * administrator with the admin CLI, so the footer carries the complete command.
 */
function footerText(channel: ChannelInfo, level: NotifyLevel, email: string): string {
  const what = level === 'important' ? 'warnings and errors' : 'all alerts';
  const fewer = level === 'important' ? 'none' : 'important|none';
  return `You get ${what} from #${channel.slug} in ${channel.workspaceName} by e-mail. To get fewer, ask an administrator to run: notify set --user ${shellWord(email)} --channel ${channel.slug} --level ${fewer}`;
}

/** An e-mail address as one shell word (single-quoted when it holds characters a shell would act on). */
function shellWord(s: string): string {
  return /^[\w.%+@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/* ------------------------------------------------------------------ text */

function cardText(a: StandardAlert, channel: ChannelInfo, kind: NotificationKind, footer: string): string {
  const style = LEVEL_STYLE[a.level];
  const out: string[] = [];
  out.push(`${a.emoji ?? style.emoji} ${oneLine(a.title)}`);
  out.push(`${a.level}${runPhase(a, kind) ? ` · ${runPhase(a, kind)}` : ''} · ${channel.icon} #${channel.slug} · ${channel.workspaceName} · ${utc(a.createdAt)}`);
  out.push('');
  if (a.message) out.push(a.message, '');
  if (a.fields.length) {
    for (const f of a.fields) out.push(`${oneLine(f.label)}: ${f.value}`);
    out.push('');
  }
  if (a.workflow) {
    out.push(`Run ${a.workflow.runId}: ${a.workflow.state}`);
    for (const s of a.workflow.steps) {
      const secs = s.seconds !== undefined ? ` · ${formatSeconds(s.seconds)}` : '';
      out.push(`  ${STEP_STYLE[s.state]?.symbol ?? '·'} ${oneLine(s.name)} — ${s.state}${secs}${s.info ? ` (${oneLine(s.info)})` : ''}`);
    }
    out.push('');
    if (a.workflow.state === 'failed' && a.workflow.error) {
      out.push('Error log (tail):', ...errorTail(a.workflow.error).split('\n').map((l) => `  ${l}`), '');
    }
  }
  const images = a.attachments.filter((x) => safeUrl(x.url));
  if (images.length) {
    out.push('Attachments:', ...images.map((x) => `  ${x.name ?? x.type}: ${x.url}`), '');
  }
  const link = safeUrl(a.linkUrl);
  if (link) out.push(`${a.linkText ?? 'View'}: ${link}`, '');
  const actor = actorLine(a);
  if (actor) out.push(`By ${actor}`);
  if (a.source) out.push(`Source: ${oneLine(a.source)}`);
  out.push('', '-- ', footer);
  return out.join('\n');
}

function runPhase(a: StandardAlert, kind: NotificationKind): string {
  if (!a.workflow) return '';
  if (kind === 'workflow.started' && a.workflow.state === 'running') return 'run started';
  return `run ${a.workflow.state}`;
}

function actorLine(a: StandardAlert): string {
  const x = a.actor;
  if (!x) return '';
  const name = x.name ?? x.email ?? x.id ?? '';
  const extra = [x.name && x.email ? x.email : null, x.company, x.plan, x.location].filter(Boolean).join(' · ');
  return oneLine(extra ? `${name} (${extra})` : name);
}

/* ------------------------------------------------------------------ html */

function preheader(a: StandardAlert): string {
  const t = a.message ? oneLine(a.message) : a.fields.map((f) => `${f.label}: ${f.value}`).join(' · ');
  return clip(t, 140);
}

function page(title: string, pre: string, card: string, footer: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light"><title>${esc(title)}</title></head>
<body style="margin:0;padding:0;background-color:#f3f4f6;">
<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;">${esc(pre)}</div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background-color:#f3f4f6;">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;background-color:#ffffff;border:1px solid #e5e7eb;border-radius:8px;border-collapse:separate;">
${card}
</table>
<table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:600px;">
<tr><td style="padding:16px 8px;font-family:${FONT};font-size:12px;line-height:18px;color:#6b7280;">${esc(footer)}</td></tr>
</table>
</td></tr></table>
</body></html>`;
}

const row = (content: string, pad = '0 24px 16px') => `<tr><td style="padding:${pad};font-family:${FONT};font-size:15px;line-height:22px;color:#111827;">${content}</td></tr>`;

function cardHtml(a: StandardAlert, channel: ChannelInfo, kind: NotificationKind): string {
  const style = LEVEL_STYLE[a.level];
  const parts: string[] = [];
  parts.push(`<tr><td style="height:6px;line-height:6px;font-size:0;background-color:${style.color};border-radius:8px 8px 0 0;">&nbsp;</td></tr>`);
  const phase = runPhase(a, kind);
  parts.push(
    row(
      `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"><tr>
<td style="font-family:${FONT};font-size:13px;color:#6b7280;">${esc(channel.icon)} #${esc(channel.slug)} · ${esc(channel.workspaceName)} · ${esc(utc(a.createdAt))}</td>
<td align="right" style="font-family:${FONT};font-size:12px;font-weight:700;white-space:nowrap;"><span style="display:inline-block;padding:2px 8px;border-radius:10px;background-color:${style.tint};color:${style.color};border:1px solid ${style.color};">${esc(style.label)}${phase ? ` · ${esc(phase)}` : ''}</span></td>
</tr></table>`,
      '16px 24px 8px',
    ),
  );
  parts.push(row(`<h1 style="margin:0;font-family:${FONT};font-size:20px;line-height:28px;font-weight:700;color:#111827;">${esc(a.emoji ?? style.emoji)} ${esc(a.title)}</h1>`, '4px 24px 12px'));
  if (a.message) parts.push(row(`<div style="white-space:pre-wrap;">${escMultiline(a.message)}</div>`));
  if (a.fields.length) parts.push(row(fieldsHtml(a.fields)));
  if (a.workflow) {
    parts.push(row(stepsHtml(a.workflow.runId, a.workflow.state, a.workflow.steps)));
    if (a.workflow.state === 'failed' && a.workflow.error) {
      parts.push(
        row(
          `<div style="font-family:${FONT};font-size:13px;font-weight:700;color:#dc2626;padding-bottom:4px;">Error log (tail)</div>
<pre style="margin:0;padding:12px;background-color:#111827;color:#f9fafb;border-radius:6px;font-family:${MONO};font-size:12px;line-height:18px;white-space:pre-wrap;word-break:break-all;">${esc(errorTail(a.workflow.error))}</pre>`,
        ),
      );
    }
  }
  const media = attachmentsHtml(a);
  if (media) parts.push(row(media));
  const link = safeUrl(a.linkUrl);
  if (link) parts.push(row(buttonHtml(link, a.linkText ?? 'View', style.color), '4px 24px 20px'));
  const meta: string[] = [];
  const actor = actorHtml(a);
  if (actor) meta.push(actor);
  if (a.source) meta.push(`Source: <b>${esc(a.source)}</b>`);
  if (meta.length) {
    parts.push(
      `<tr><td style="padding:12px 24px;border-top:1px solid #e5e7eb;font-family:${FONT};font-size:13px;line-height:20px;color:#4b5563;">${meta.join('<br>')}</td></tr>`,
    );
  }
  return parts.join('\n');
}

/** Inline fields share rows of up to three cells (the card's compact grid); the others take a full row. */
function fieldsHtml(fields: Field[]): string {
  const rows: Field[][] = [];
  let grid: Field[] = [];
  for (const f of fields) {
    if (f.inline) {
      grid.push(f);
      if (grid.length === 3) {
        rows.push(grid);
        grid = [];
      }
    } else {
      if (grid.length) rows.push(grid);
      grid = [];
      rows.push([f]);
    }
  }
  if (grid.length) rows.push(grid);
  const cell = (f: Field, width: string, colspan: number) =>
    `<td valign="top" width="${width}" colspan="${colspan}" style="padding:6px 8px 6px 0;font-family:${FONT};">
<div style="font-size:12px;line-height:16px;font-weight:700;color:#6b7280;text-transform:uppercase;letter-spacing:0.02em;">${esc(f.label)}</div>
<div style="font-size:14px;line-height:20px;color:#111827;white-space:pre-wrap;">${escMultiline(f.value)}</div></td>`;
  const body = rows
    .map((r) => {
      if (r.length === 1 && !r[0]!.inline) return `<tr>${cell(r[0]!, '100%', 3)}</tr>`;
      const cells = r.map((f) => cell(f, '33%', 1));
      while (cells.length < 3) cells.push('<td width="33%">&nbsp;</td>');
      return `<tr>${cells.join('')}</tr>`;
    })
    .join('\n');
  return `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-top:1px solid #f3f4f6;">${body}</table>`;
}

function stepsHtml(runId: string, state: string, steps: WorkflowStep[]): string {
  const rows = steps
    .map((s) => {
      const st = STEP_STYLE[s.state] ?? { symbol: '·', color: '#6b7280' };
      return `<tr>
<td width="24" valign="top" style="padding:5px 0;font-family:${FONT};font-size:14px;font-weight:700;color:${st.color};">${st.symbol}</td>
<td valign="top" style="padding:5px 8px 5px 0;font-family:${FONT};font-size:14px;color:#111827;">${esc(s.name)}${s.info ? `<div style="font-size:12px;color:#6b7280;">${esc(s.info)}</div>` : ''}</td>
<td valign="top" style="padding:5px 8px;font-family:${FONT};font-size:13px;color:${st.color};white-space:nowrap;">${esc(s.state)}</td>
<td valign="top" align="right" style="padding:5px 0;font-family:${MONO};font-size:13px;color:#4b5563;white-space:nowrap;">${s.seconds !== undefined ? esc(formatSeconds(s.seconds)) : ''}</td>
</tr>`;
    })
    .join('\n');
  return `<div style="font-family:${FONT};font-size:13px;color:#6b7280;padding-bottom:4px;">Run <code style="font-family:${MONO};">${esc(runId)}</code> · <b>${esc(state)}</b></div>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="border-top:1px solid #e5e7eb;border-bottom:1px solid #e5e7eb;">${rows}</table>`;
}

function attachmentsHtml(a: StandardAlert): string {
  return a.attachments
    .map((x) => {
      const url = safeUrl(x.url);
      if (!url) return '';
      if (x.type === 'image') {
        return `<a href="${esc(url)}" style="text-decoration:none;"><img src="${esc(url)}" alt="${esc(x.name ?? 'image')}" width="552" style="display:block;width:100%;max-width:552px;height:auto;border:1px solid #e5e7eb;border-radius:6px;margin:0 0 8px;"></a>`;
      }
      return `<div style="padding:0 0 8px;"><a href="${esc(url)}" style="color:#2563eb;">${esc(x.type === 'video' ? '🎬' : '🔊')} ${esc(x.name ?? `${x.type} (${x.mime})`)}</a></div>`;
    })
    .join('');
}

/** A "bulletproof" button: a table cell with a background colour, which Outlook renders where CSS buttons fail. */
function buttonHtml(url: string, text: string, color: string): string {
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0"><tr>
<td align="center" bgcolor="${color}" style="border-radius:6px;background-color:${color};">
<a href="${esc(url)}" target="_blank" style="display:inline-block;padding:10px 20px;font-family:${FONT};font-size:15px;font-weight:700;color:#ffffff;text-decoration:none;border-radius:6px;">${esc(text)}</a>
</td></tr></table>`;
}

function actorHtml(a: StandardAlert): string {
  const x = a.actor;
  if (!x) return '';
  const avatar = safeUrl(x.avatarUrl);
  const name = x.name ?? x.email ?? x.id ?? '';
  const profile = safeUrl(x.url);
  const nameHtml = profile ? `<a href="${esc(profile)}" style="color:#111827;font-weight:700;">${esc(name)}</a>` : `<b>${esc(name)}</b>`;
  const extra = [x.name && x.email ? x.email : null, x.company, x.plan, x.location].filter(Boolean).map(esc).join(' · ');
  const img = avatar
    ? `<img src="${esc(avatar)}" alt="" width="20" height="20" style="width:20px;height:20px;border-radius:10px;vertical-align:middle;margin-right:6px;">`
    : '';
  return `${img}By ${nameHtml}${extra ? ` <span style="color:#6b7280;">(${extra})</span>` : ''}`;
}

/* ------------------------------------------------------------------ chat */

function renderChat(m: ChatAlert, channel: ChannelInfo, subject: string, footer: string): RenderedEmail {
  const when = utc(m.createdAt);
  const text = [
    `${m.author.name} in #${channel.slug} · ${channel.workspaceName} · ${when}`,
    '',
    m.message ?? '',
    ...m.attachments.filter((x) => safeUrl(x.url)).map((x) => `Attachment: ${x.url}`),
    '',
    '-- ',
    footer,
  ].join('\n');
  const card = [
    `<tr><td style="height:6px;line-height:6px;font-size:0;background-color:#6b7280;border-radius:8px 8px 0 0;">&nbsp;</td></tr>`,
    row(`<div style="font-size:13px;color:#6b7280;">${esc(channel.icon)} #${esc(channel.slug)} · ${esc(channel.workspaceName)} · ${esc(when)}</div>`, '16px 24px 8px'),
    row(`<b>${esc(m.author.name)}</b>`, '0 24px 8px'),
    m.message ? row(`<div style="white-space:pre-wrap;">${escMultiline(m.message)}</div>`) : '',
    m.attachments.length
      ? row(
          m.attachments
            .map((x) => {
              const url = safeUrl(x.url);
              if (!url) return '';
              return x.mime.startsWith('image/')
                ? `<img src="${esc(url)}" alt="" width="552" style="display:block;width:100%;max-width:552px;height:auto;border-radius:6px;margin:0 0 8px;">`
                : `<div><a href="${esc(url)}">${esc(x.mime)}</a></div>`;
            })
            .join(''),
        )
      : '',
  ].join('\n');
  return { subject, text, html: page(subject, m.message ? clip(oneLine(m.message), 140) : '', card, footer) };
}

/* ------------------------------------------------------------------ digest */

export interface DigestInput {
  channel: ChannelInfo;
  alerts: AlertView[];
  windowStart: number;
  windowEnd: number;
  floodLimit: number;
  recipientLevel: NotifyLevel;
  recipientEmail: string;
}

/** One e-mail listing the alerts folded while the flood guard held a recipient's channel back. */
export function renderDigestEmail(d: DigestInput): RenderedEmail {
  const n = d.alerts.length;
  const from = new Date(d.windowStart).toISOString().slice(11, 16);
  const to = new Date(d.windowEnd).toISOString().slice(11, 16);
  const subject = `[Digest] #${d.channel.slug} — ${n} more alert${n === 1 ? '' : 's'} (${from}–${to} UTC)`;
  const footer = footerText(d.channel, d.recipientLevel, d.recipientEmail);
  const intro = `More than ${d.floodLimit} alerts arrived in #${d.channel.slug} within ${formatSpan(d.windowEnd - d.windowStart)}; the rest are listed here instead of one e-mail each.`;
  const line = (a: AlertView) => {
    if ('title' in a) return { level: a.level, emoji: a.emoji ?? LEVEL_STYLE[a.level].emoji, title: a.title, detail: a.message ?? '', when: a.createdAt, link: safeUrl(a.linkUrl), linkText: a.linkText ?? 'View', state: a.workflow?.state };
    return { level: 'INFO' as const, emoji: '💬', title: `${a.author.name}: ${a.message ?? '(attachment)'}`, detail: '', when: a.createdAt, link: null, linkText: '', state: undefined };
  };
  const items = d.alerts.map(line);
  const text = [
    intro,
    '',
    ...items.flatMap((i) => [
      `${i.emoji} [${i.level}] ${oneLine(i.title)}${i.state ? ` (run ${i.state})` : ''} — ${utc(i.when)}`,
      ...(i.detail ? [`    ${clip(oneLine(i.detail), 200)}`] : []),
      ...(i.link ? [`    ${i.linkText}: ${i.link}`] : []),
    ]),
    '',
    '-- ',
    footer,
  ].join('\n');
  const rows = items
    .map((i) => {
      const st = LEVEL_STYLE[i.level];
      return `<tr>
<td width="6" style="background-color:${st.color};font-size:0;line-height:0;">&nbsp;</td>
<td style="padding:8px 12px;border-bottom:1px solid #e5e7eb;font-family:${FONT};">
<div style="font-size:15px;line-height:20px;color:#111827;font-weight:700;">${esc(i.emoji)} ${esc(i.title)}${i.state ? ` <span style="font-weight:400;color:#6b7280;">(run ${esc(i.state)})</span>` : ''}</div>
<div style="font-size:12px;line-height:18px;color:#6b7280;">${esc(st.label)} · ${esc(utc(i.when))}${i.link ? ` · <a href="${esc(i.link)}" style="color:${st.color};">${esc(i.linkText)}</a>` : ''}</div>
${i.detail ? `<div style="font-size:13px;line-height:18px;color:#374151;">${esc(clip(oneLine(i.detail), 200))}</div>` : ''}
</td></tr>`;
    })
    .join('\n');
  const card = [
    `<tr><td style="height:6px;line-height:6px;font-size:0;background-color:#6b7280;border-radius:8px 8px 0 0;">&nbsp;</td></tr>`,
    row(`<div style="font-size:13px;color:#6b7280;">${esc(d.channel.icon)} #${esc(d.channel.slug)} · ${esc(d.channel.workspaceName)}</div>`, '16px 24px 8px'),
    row(`<h1 style="margin:0;font-family:${FONT};font-size:20px;line-height:28px;color:#111827;">${n} more alert${n === 1 ? '' : 's'} in #${esc(d.channel.slug)}</h1>`, '4px 24px 8px'),
    row(`<div style="font-size:14px;color:#4b5563;">${esc(intro)}</div>`),
    row(`<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0">${rows}</table>`, '0 24px 24px'),
  ].join('\n');
  return { subject, text, html: page(subject, intro, card, footer) };
}
