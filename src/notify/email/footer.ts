import type { NotifyLevel } from '../preferences.js';
import type { ChannelInfo } from './types.js';

/**
 * Says why this arrived and how to change it: preferences are set by an
 * administrator with the admin CLI, so the footer carries the complete command.
 */
export function footerText(channel: ChannelInfo, level: NotifyLevel, email: string): string {
  const what = level === 'important' ? 'warnings and errors' : 'all alerts';
  const fewer = level === 'important' ? 'none' : 'important|none';
  return `You get ${what} from #${channel.slug} in ${channel.workspaceName} by e-mail. To get fewer, ask an administrator to run: notify set --user ${shellWord(email)} --channel ${channel.slug} --level ${fewer}`;
}

/** An e-mail address as one shell word (single-quoted when it holds characters a shell would act on). */
function shellWord(s: string): string {
  return /^[\w.%+@-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
