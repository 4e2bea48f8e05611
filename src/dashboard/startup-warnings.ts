import type { Config } from '../config.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const ALL_INTERFACES = new Set(['0.0.0.0', '::', '']);

/**
 * Configurations that start fine but break the dashboard for someone: a
 * localhost PUBLIC_URL while listening on every interface means browsers on
 * other machines send an Origin the CSRF check refuses.
 */
export function dashboardStartupWarnings(config: Pick<Config, 'publicUrl' | 'host'>): string[] {
  const warnings: string[] = [];
  const url = new URL(config.publicUrl);
  if ((LOOPBACK_HOSTS.has(url.hostname) || url.hostname.endsWith('.localhost')) && ALL_INTERFACES.has(config.host)) {
    warnings.push(
      `PUBLIC_URL is ${url.origin} but the service listens on all interfaces (HOST=${config.host || '0.0.0.0'}): dashboard forms sent from any other address are refused by the Origin check. Set PUBLIC_URL to the address browsers use.`,
    );
  }
  return warnings;
}
