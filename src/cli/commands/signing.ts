import { SIGNING_SECRET_MAX_CHARS, SIGNING_SECRET_MIN_CHARS as MIN_SECRET_CHARS } from '../../domain/formats/github-body.js';
import { UsageError, defineCommand, type Command } from '../command.js';

/** The channel's GitHub signing secret (issue 14): set or cleared, never printed back. */
export const signingCommands: Command[] = [
  defineCommand({
    name: 'channel set-signing-secret',
    summary: "require GitHub's X-Hub-Signature-256 on the channel's /github path (--clear removes the secret)",
    flags: { channel: { type: 'string', value: 'C', required: true }, secret: { type: 'string', value: 'S' }, clear: { type: 'boolean' } },
    run: async (ctx, f) => {
      if (f.clear && f.secret !== undefined) throw new UsageError('give --secret S or --clear, not both');
      if (f.clear) return await (await ctx.accounts()).setSigningSecret(f.channel, null);
      if (f.secret === undefined) throw new UsageError('give --secret S (the secret set in the GitHub webhook) or --clear');
      if (f.secret.length < MIN_SECRET_CHARS) throw new UsageError(`--secret must be at least ${MIN_SECRET_CHARS} characters`);
      if (f.secret.length > SIGNING_SECRET_MAX_CHARS) throw new UsageError(`--secret must be at most ${SIGNING_SECRET_MAX_CHARS} characters`);
      return await (await ctx.accounts()).setSigningSecret(f.channel, f.secret);
    },
  }),
];
