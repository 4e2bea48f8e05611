import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { eventually } from './poll.js';

export interface SinkMessage {
  /** RCPT TO addresses, lower-cased. */
  rcpt: string[];
  from: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  inReplyTo: string | undefined;
  references: string[];
  headers: Map<string, unknown>;
  /** The sender's TCP port (to find which process held the conversation). */
  clientPort: number;
  /**
   * True once the sink answered the DATA with 250, i.e. the message was delivered. A message held
   * (hold()) whose sender disconnected before release() never is: a real server discards it.
   */
  acknowledged: boolean;
  /** Header fields as sent, unfolded (mailparser merges some, e.g. every List-* field into one `list` entry). */
  rawHeader(name: string): string | undefined;
}

/**
 * A real SMTP server on 127.0.0.1 (smtp-server) that keeps every accepted
 * message, parsed with mailparser. It can refuse the next K attempts with a
 * given reply code (451 greylisting, 421 shutting down, 550 rejected) and can
 * hold the final DATA acknowledgement, to simulate a crash mid-send.
 */
export class SmtpSink {
  readonly messages: SinkMessage[] = [];
  /** MAIL FROM commands seen (accepted or refused). */
  attempts = 0;
  private rejecting: { remaining: number; code: number; text: string } = { remaining: 0, code: 451, text: '' };
  private held: { sessionId: string; ack: () => void }[] | null = null;
  private authFailures = 0;

  private constructor(
    private readonly server: SMTPServer,
    readonly port: number,
  ) {}

  /** With `auth`, the sink offers AUTH (PLAIN, LOGIN, over plain TCP) and accepts only these credentials. */
  static async start(opts: { auth?: { user: string; pass: string } } = {}): Promise<SmtpSink> {
    // Assigned once below: the server's handlers close over it before the port (and so the sink) exists.
    // eslint-disable-next-line prefer-const
    let sink!: SmtpSink;
    const { auth } = opts;
    const server = new SMTPServer({
      authOptional: !auth,
      disabledCommands: auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
      allowInsecureAuth: true,
      onAuth: (login, _session, callback) => {
        const ok = sink.authFailures === 0 && login.username === auth?.user && login.password === auth?.pass;
        if (sink.authFailures > 0) sink.authFailures--;
        if (!ok) return callback(Object.assign(new Error('Authentication credentials invalid'), { responseCode: 535 }));
        callback(null, { user: login.username });
      },
      logger: false,
      disableReverseLookup: true,
      onMailFrom: (_address, _session, callback) => {
        sink.attempts++;
        if (sink.rejecting.remaining > 0) {
          sink.rejecting.remaining--;
          const err = new Error(sink.rejecting.text) as Error & { responseCode: number };
          err.responseCode = sink.rejecting.code;
          return callback(err);
        }
        callback();
      },
      onClose: (session) => {
        // The sender hung up (or died) while its message was held: it never got the 250.
        if (sink.held) sink.held = sink.held.filter((h) => h.sessionId !== session.id);
      },
      onData: (stream, session, callback) => {
        simpleParser(stream)
          .then((mail) => {
            const message: SinkMessage = {
              rcpt: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
              from: mail.from?.text ?? '',
              subject: mail.subject ?? '',
              text: mail.text ?? '',
              html: typeof mail.html === 'string' ? mail.html : '',
              messageId: mail.messageId ?? '',
              inReplyTo: mail.inReplyTo,
              references: mail.references === undefined ? [] : Array.isArray(mail.references) ? mail.references : [mail.references],
              headers: mail.headers,
              rawHeader: (name) => {
                const line = mail.headerLines.find((l) => l.key === name.toLowerCase())?.line;
                return line?.slice(line.indexOf(':') + 1).replace(/\r?\n[ \t]+/g, ' ').trim();
              },
              clientPort: session.remotePort,
              acknowledged: false,
            };
            sink.messages.push(message);
            const ack = () => {
              message.acknowledged = true;
              callback();
            };
            if (sink.held) sink.held.push({ sessionId: session.id, ack });
            else ack();
          })
          .catch((err: Error) => callback(err));
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    sink = new SmtpSink(server, (server.server.address() as AddressInfo).port);
    return sink;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Refuse the next `count` attempts (at MAIL FROM) with `code`. */
  rejectNext(count: number, code = 451, text = 'Try again later') {
    this.rejecting = { remaining: count, code, text };
  }

  /** Refuse the next `count` logins (535), even with the right password. */
  rejectAuthNext(count: number) {
    this.authFailures = count;
  }

  /** Keep accepted messages but withhold the final "250 OK" until release() (the sender stays mid-send). */
  hold(): void {
    this.held ??= [];
  }

  /** Messages held whose sender is still connected, waiting for release(). */
  get holding(): number {
    return this.held?.length ?? 0;
  }

  release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const { ack } of held) ack();
  }

  to(email: string): SinkMessage[] {
    return this.messages.filter((m) => m.rcpt.includes(email.toLowerCase()));
  }

  /** Resolves once at least `n` messages arrived; fails with what did arrive after `timeoutMs`. */
  async waitFor(n: number, timeoutMs = 5_000): Promise<SinkMessage[]> {
    await eventually(() => this.messages.length >= n, `${n} e-mails`, { timeoutMs, seen: () => this.messages.map((m) => [m.rcpt, m.subject]) });
    return this.messages;
  }

  close(): Promise<void> {
    this.release();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
