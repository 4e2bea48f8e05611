/**
 * The e-mails the outbox worker sends, as one entry point. The card itself is
 * the shared alert card (src/alert-card), rendered with inline styles;
 * src/notify/email holds the documents around it (layout, subject, footer,
 * text parts, digest).
 */
export { renderAlertEmail, type AlertEmailInput } from './email/alert-email.js';
export { renderDigestEmail, type DigestInput } from './email/digest-email.js';
export { subjectFor } from './email/subject.js';
export type { ChannelInfo, EmailLinks, RenderedEmail } from './email/types.js';
export { errorTail, formatSeconds, safeUrl } from '../alert-card/format.js';
