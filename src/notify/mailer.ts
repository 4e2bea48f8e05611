import { createRequire } from 'node:module';
import type NodemailerModule from 'nodemailer';

/**
 * nodemailer is loaded when an SmtpMailer is made, not at start: without
 * SMTP_URL the service never needs it, and loading it costs about 4 MB of
 * heap for as long as the process runs (docs/benchmarks.md "Memory: where it goes").
 */
const require = createRequire(import.meta.url);
const loadNodemailer = () => require('nodemailer') as typeof NodemailerModule;

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Set by us (deterministic per delivery) so a receiving system can de-duplicate. */
  messageId: string;
  references?: string[];
  headers?: Record<string, string>;
}

/** The one thing the worker needs from an e-mail transport. */
export interface Mailer {
  send(message: MailMessage): Promise<{ messageId: string }>;
  close(): void;
}

/**
 * nodemailer over SMTP. `SMTP_URL` is nodemailer's connection URL
 * (`smtp://user:pass@host:587`, `smtps://…:465`; query options such as
 * `?pool=true` or `?tls.rejectUnauthorized=false` are passed through).
 */
export class SmtpMailer implements Mailer {
  private readonly transport;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    this.transport = loadNodemailer().createTransport(smtpUrl);
  }

  async send(m: MailMessage): Promise<{ messageId: string }> {
    const info = await this.transport.sendMail({
      from: this.from,
      to: m.to,
      subject: m.subject,
      text: m.text,
      html: m.html,
      messageId: m.messageId,
      references: m.references,
      inReplyTo: m.references?.[m.references.length - 1],
      headers: m.headers,
    });
    return { messageId: info.messageId ?? m.messageId };
  }

  close(): void {
    this.transport.close();
  }
}

/**
 * Permanent = retrying cannot help: the server answered 5xx (recipient
 * unknown, message refused). Authentication failures (535) are the exception:
 * they are a configuration problem an operator may fix while retries run.
 * Everything else (4xx, connection refused, timeouts, TLS) is transient.
 */
export function isPermanentSmtpError(err: unknown): boolean {
  const e = err as { responseCode?: number; code?: string };
  return typeof e?.responseCode === 'number' && e.responseCode >= 500 && e.responseCode < 600 && e.code !== 'EAUTH';
}

/** A short, single-line reason for `last_error` (never the SMTP URL or credentials). */
export function describeError(err: unknown): string {
  const e = err as { responseCode?: number; code?: string; response?: string; message?: string };
  const text = (e?.response ?? e?.message ?? String(err)).replace(/\s+/g, ' ').trim();
  const prefix = [e?.code, e?.responseCode].filter(Boolean).join(' ');
  return (prefix ? `${prefix}: ${text}` : text).slice(0, 500);
}
