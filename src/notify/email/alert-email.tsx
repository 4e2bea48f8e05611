import type { AlertView } from '../../domain/alert-view.js';
import type { NotificationKind } from '../../domain/changes.js';
import type { NotifyLevel } from '../../domain/notification-preferences.js';
import { AlertCard } from '../../alert-card/alert-card.js';
import { clip, oneLine, plainText } from '../../alert-card/format.js';
import { runPhase, toCardModel, type CardModel } from '../../alert-card/view-model.js';
import { emailFooter } from './footer.js';
import { emailDocument } from './layout.js';
import { subjectFor } from './subject.js';
import { alertText, chatText } from './text-part.js';
import type { ChannelInfo, EmailLinks, RenderedEmail } from './types.js';

const PREHEADER_MAX = 140;

export interface AlertEmailInput {
  alert: AlertView;
  channel: ChannelInfo;
  kind: NotificationKind;
  recipientLevel: NotifyLevel;
  /** Named in the footer's command, so an administrator can run it as it stands. */
  recipientEmail: string;
  /** The recipient's dashboard links (channel, settings, one-click unsubscribe). */
  links?: EmailLinks;
  /** "Escalation 2 of 3" on an escalation step: the subject starts with it. */
  escalation?: string | null;
}

/** One alert or chat message as an e-mail: the card (inline styling) and its text part. */
export function renderAlertEmail(input: AlertEmailInput): RenderedEmail {
  const subject = `${input.escalation ? `${input.escalation}: ` : ''}${subjectFor(input.alert, input.channel, input.kind)}`;
  const footer = emailFooter(input.channel, input.recipientLevel, input.recipientEmail, input.links);
  const card = toCardModel(input.alert);
  const phase = card.kind === 'alert' ? runPhase(card, input.kind === 'workflow.started') : null;
  const body = card.kind === 'alert' ? alertText(card, input.channel, phase, footer.text) : chatText(card, input.channel, footer.text);
  const note = input.escalation ? `${input.escalation}: this alert is still open and nobody has acknowledged it.` : null;
  const text = note ? `${note}\n\n${body}` : body;
  const html = emailDocument({
    title: subject,
    preheader: note ?? preheader(card),
    footer: footer.html,
    card: <AlertCard card={card} styling="inline" channel={input.channel} phase={phase} />,
  });
  return { subject, text, html };
}

/** The inbox preview line: the message, else the fields. */
function preheader(card: CardModel): string {
  if (card.message) return clip(oneLine(plainText(card.message)), PREHEADER_MAX);
  if (card.kind === 'chat') return '';
  const fields = card.fields.flatMap((r) => r.fields);
  return clip(fields.map((f) => `${f.label}: ${plainText(f.value)}`).join(' · '), PREHEADER_MAX);
}
