import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Secrets never reach a log line: request logging prints
 * paths with the webhook token masked (see maskPath) and never prints headers;
 * the redact list is a second line of defence for objects logged by mistake.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  // `destination` lets a test read every line the production configuration writes (redaction included).
  const options: LoggerOptions = {
    level,
    base: undefined,
    redact: {
      paths: [
        'authorization',
        '*.authorization',
        'headers.authorization',
        'token',
        '*.token',
        'webhookToken',
        '*.webhookToken',
        'smtpUrl',
        'discordToken',
        'config.discordToken',
        'config.smtpUrl',
        'metricsToken',
        'config.metricsToken',
        // A channel's GitHub webhook secret (WebhookChannel.signingSecret), should a channel object be logged.
        'signingSecret',
        '*.signingSecret',
        'channel.signingSecret',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

/**
 * `/api/webhook/<token>` → `/api/webhook/****` so access logs never carry a webhook token; a ping
 * URL's UUID or ping key (`/ping/<credential>/…`) is masked the same way; a slug or suffix is no secret.
 */
export function maskPath(pathname: string): string {
  return pathname.replace(/^(\/api\/webhook\/)[^/]+/, '$1****').replace(/^(\/ping\/)[^/]+/, '$1****');
}
