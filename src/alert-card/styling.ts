import type { Tone } from './view-model.js';

/**
 * How the card components present themselves:
 * - `inline`: e-mail. Style attributes on every element and table layout, because
 *   Gmail and Outlook drop <style> and most CSS layout.
 * - `classes`: pages. Class names only and no style attribute anywhere, so a page's
 *   CSP needs no 'unsafe-inline'; alert-card.css gives the classes their look.
 *
 * Every part of the card is named once here with its e-mail CSS; its class is
 * `ab-<part in kebab-case>`, plus `ab-tone-<tone>` for parts coloured by a level or
 * state. alert-card.css must style each class a component emits (a test checks).
 */
export type Styling = 'inline' | 'classes';

export const FONT = "-apple-system,BlinkMacSystemFont,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";
export const MONO = "ui-monospace,SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace";

export interface ToneColors {
  color: string;
  tint: string;
}
export const TONES: Record<Tone, ToneColors> = {
  info: { color: '#2563eb', tint: '#eff6ff' },
  success: { color: '#16a34a', tint: '#f0fdf4' },
  warning: { color: '#d97706', tint: '#fffbeb' },
  error: { color: '#dc2626', tint: '#fef2f2' },
  neutral: { color: '#6b7280', tint: '#f3f4f6' },
};

/** A row of the e-mail card: its padding plus the body text style every row starts from. */
const row = (pad: string) => `padding:${pad};font-family:${FONT};font-size:15px;line-height:22px;color:#111827;`;

const PARTS = {
  card: 'width:100%;max-width:600px;background-color:#ffffff;border:1px solid #e5e7eb;border-radius:8px;border-collapse:separate;',
  flat: '',
  accent: (t: ToneColors) => `height:6px;line-height:6px;font-size:0;background-color:${t.color};border-radius:8px 8px 0 0;`,
  headerSection: row('16px 24px 8px'),
  headerMeta: `font-family:${FONT};font-size:13px;color:#6b7280;`,
  badgeCell: `font-family:${FONT};font-size:12px;font-weight:700;white-space:nowrap;`,
  badge: (t: ToneColors) => `display:inline-block;padding:2px 8px;border-radius:10px;background-color:${t.tint};color:${t.color};border:1px solid ${t.color};`,
  spinner: '',
  titleSection: row('4px 24px 12px'),
  title: `margin:0;font-family:${FONT};font-size:20px;line-height:28px;font-weight:700;color:#111827;`,
  section: row('0 24px 16px'),
  message: 'white-space:pre-wrap;',
  textLink: 'color:#2563eb;',
  fields: 'border-top:1px solid #f3f4f6;',
  field: `padding:6px 8px 6px 0;font-family:${FONT};`,
  fieldWide: `padding:6px 8px 6px 0;font-family:${FONT};`,
  fieldLabel: 'font-size:12px;line-height:16px;font-weight:700;color:#6b7280;text-transform:uppercase;letter-spacing:0.02em;',
  fieldValue: 'font-size:14px;line-height:20px;color:#111827;white-space:pre-wrap;',
  runLine: `font-family:${FONT};font-size:13px;color:#6b7280;padding-bottom:4px;`,
  runId: `font-family:${MONO};`,
  runState: (t: ToneColors) => `color:${t.color};`,
  steps: 'border-top:1px solid #e5e7eb;border-bottom:1px solid #e5e7eb;',
  step: 'padding:5px 0;',
  stepSymbol: (t: ToneColors) => `padding:5px 0;font-family:${FONT};font-size:14px;font-weight:700;color:${t.color};`,
  stepName: `padding:5px 8px 5px 0;font-family:${FONT};font-size:14px;color:#111827;`,
  stepInfo: 'font-size:12px;color:#6b7280;',
  stepState: (t: ToneColors) => `padding:5px 8px;font-family:${FONT};font-size:13px;color:${t.color};white-space:nowrap;`,
  stepDuration: `padding:5px 0;font-family:${MONO};font-size:13px;color:#4b5563;white-space:nowrap;`,
  errorHeading: `font-family:${FONT};font-size:13px;font-weight:700;color:#dc2626;padding-bottom:4px;`,
  errorLog: `margin:0;padding:12px;background-color:#111827;color:#f9fafb;border-radius:6px;font-family:${MONO};font-size:12px;line-height:18px;white-space:pre-wrap;word-break:break-all;`,
  imageLink: 'text-decoration:none;',
  image: 'display:block;width:100%;max-width:552px;height:auto;border:1px solid #e5e7eb;border-radius:6px;margin:0 0 8px;',
  video: 'display:block;width:100%;max-width:552px;margin:0 0 8px;',
  audio: 'display:block;width:100%;margin:0 0 8px;',
  mediaItem: 'padding:0 0 8px;',
  mediaLink: 'color:#2563eb;',
  buttonSection: row('4px 24px 20px'),
  buttonCell: (t: ToneColors) => `border-radius:6px;background-color:${t.color};`,
  button: `display:inline-block;padding:10px 20px;font-family:${FONT};font-size:15px;font-weight:700;color:#ffffff;text-decoration:none;border-radius:6px;`,
  metaSection: `padding:12px 24px;border-top:1px solid #e5e7eb;font-family:${FONT};font-size:13px;line-height:20px;color:#4b5563;`,
  actor: 'display:inline;',
  actorName: 'color:#111827;font-weight:700;',
  actorDetails: 'color:#6b7280;',
  avatar: 'width:20px;height:20px;border-radius:10px;vertical-align:middle;margin-right:6px;',
  initials:
    'display:inline-block;width:20px;height:20px;border-radius:10px;background-color:#e5e7eb;color:#374151;font-size:10px;line-height:20px;font-weight:700;text-align:center;vertical-align:middle;margin-right:6px;',
  source: 'font-weight:700;',
  author: 'font-weight:700;',
  roleBadge: (t: ToneColors) =>
    `display:inline-block;margin-left:6px;padding:0 6px;border-radius:8px;background-color:${t.tint};color:${t.color};font-size:11px;line-height:16px;font-weight:700;vertical-align:middle;`,
  edited: 'color:#6b7280;font-size:12px;',
  channelLabel: '',
  replyQuote: 'margin:0 0 8px;padding:4px 10px;border-left:3px solid #d1d5db;color:#4b5563;font-size:14px;line-height:20px;',
  replyAuthor: 'font-weight:700;',
  reactions: 'margin:8px 0 0;padding:0;list-style:none;',
  reaction: 'display:inline-block;margin:0 6px 4px 0;padding:0 8px;border:1px solid #e5e7eb;border-radius:10px;background-color:#f3f4f6;font-size:13px;line-height:22px;',
  reactionCount: 'font-weight:700;color:#4b5563;',
  threadLine: 'display:block;margin:0 0 6px;',
  threadChip: 'display:inline-block;margin-right:6px;padding:0 8px;border-radius:10px;background-color:#eff6ff;color:#1d4ed8;font-size:12px;line-height:20px;font-weight:600;',
  tagChip: 'display:inline-block;margin-right:6px;padding:0 8px;border:1px solid #d1d5db;border-radius:10px;color:#374151;font-size:12px;line-height:20px;',
} satisfies Record<string, string | ((t: ToneColors) => string)>;

export type Part = keyof typeof PARTS;

/** The attributes one part of the card carries: exactly one of style (e-mail) or class (pages). */
export type Look = { style: string; class?: never } | { class: string; style?: never };

const classNameOf = (part: Part) => `ab-${part.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
/** Worked out once: a page of cards asks for thousands of them (search and feed pages). */
const CLASS_NAMES = Object.fromEntries(Object.keys(PARTS).map((part) => [part, classNameOf(part as Part)])) as Record<Part, string>;

export function look(styling: Styling, part: Part, tone?: Tone): Look {
  if (styling === 'classes') return { class: tone ? `${CLASS_NAMES[part]} ab-tone-${tone}` : CLASS_NAMES[part] };
  const css: string | ((t: ToneColors) => string) = PARTS[part];
  return { style: typeof css === 'string' ? css : css(TONES[tone ?? 'neutral']) };
}
