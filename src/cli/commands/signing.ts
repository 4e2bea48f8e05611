import { UsageError, defineCommand, type Command } from '../command.js';

/** A secret shorter than this is guessable offline from one signed delivery. */
const MIN_SECRET_CHARS = 16;

/** The channel's GitHub signing secret (issue 14): set or cleared, never printed back. */
export const signingCommands: Command[] = [
  defineCommand({
    name: 'channel set-signing-secret',
    summary: "require GitHub's X-Hub-Signature-256 on the channel's /github path (--clear removes the secret)",
    flags: { channel: { type: 'string', value: 'C', required: true }, secret: { type: 'string', value: 'S' }, clear: { type: 'boolean' } },
    run: (ctx, f) => {
      if (f.clear && f.secret !== undefined) throw new UsageError('give --secret S or --clear, not both');
      if (f.clear) return ctx.accounts().setSigningSecret(f.channel, null);
      if (f.secret === undefined) throw new UsageError('give --secret S (the secret set in the GitHub webhook) or --clear');
      if (f.secret.length < MIN_SECRET_CHARS) throw new UsageError(`--secret must be at least ${MIN_SECRET_CHARS} characters`);
      return ctx.accounts().setSigningSecret(f.channel, f.secret);
    },
  }),
];
