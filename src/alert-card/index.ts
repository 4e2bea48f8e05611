/**
 * The alert card, for e-mail and pages: build the view model once with
 * toCardModel(alert), render <AlertCard card={…} styling="inline" | "classes" />,
 * and serve alert-card.css with pages that use the `classes` styling.
 */
export { AlertCard, ChatCard, StandardCard, type AlertCardProps } from './alert-card.js';
export { Actor, Avatar, ChatAuthor, ReplyQuote } from './actor.js';
export { Attachments } from './attachments.js';
export { Reactions, ThreadChip } from './reactions.js';
export { Fields } from './fields.js';
export { CardHeader, HeaderMeta, LinkButton, RichText, Section, Time, type ChannelLabel } from './parts.js';
export { WorkflowError, WorkflowSteps } from './workflow-steps.js';
export { FONT, MONO, TONES, look, type Look, type Part, type Styling } from './styling.js';
export * from './view-model.js';
export { clip, errorTail, formatSeconds, formatSpan, initialsOf, linkify, oneLine, plainText, safeUrl, utcMinute, type TextLine, type TextSegment } from './format.js';
