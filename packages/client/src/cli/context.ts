import { parseArgs, type ParseArgsConfig } from 'node:util';
import { AlertbridgeApi } from '../api.js';

/** What a command reads and writes: the process's streams and environment, or a test's. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream;
}

/** A mistake in the command line: exit status 2, with the command's usage on stderr. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Options every command takes. */
export const COMMON = {
  json: { type: 'boolean' },
  url: { type: 'string' },
  token: { type: 'string' },
  'webhook-url': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed values of an options table: a string (or strings) per string option, a boolean per flag. */
export type Values<O> = {
  [K in keyof O]?: O[K] extends { type: 'boolean' } ? boolean : O[K] extends { multiple: true } ? string[] : string;
};

/** node:util's parseArgs, strict: an unknown option or a missing value is a UsageError. */
export function parse<O extends Options>(args: readonly string[], options: O): { values: Values<O & typeof COMMON>; positionals: string[] } {
  try {
    const { values, positionals } = parseArgs({ args: [...args], options: { ...COMMON, ...options }, allowPositionals: true, strict: true });
    return { values: values as Values<O & typeof COMMON>, positionals };
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

/** The read API client from --url/--token or ALERTBRIDGE_URL/ALERTBRIDGE_TOKEN. */
export function apiFrom(values: { url?: string | undefined; token?: string | undefined }, env: NodeJS.ProcessEnv): AlertbridgeApi {
  const baseUrl = values.url ?? env.ALERTBRIDGE_URL;
  const token = values.token ?? env.ALERTBRIDGE_TOKEN;
  if (!baseUrl) throw new UsageError('the service address is missing: pass --url or set ALERTBRIDGE_URL');
  if (!token) throw new UsageError('an API token is missing: pass --token or set ALERTBRIDGE_TOKEN');
  checkUrl(baseUrl, '--url');
  return new AlertbridgeApi({ baseUrl, token });
}

/** The webhook URL from --webhook-url or ALERTBRIDGE_WEBHOOK_URL (undefined when neither is set). */
export function webhookFrom(values: { 'webhook-url'?: string | undefined }, env: NodeJS.ProcessEnv): string | undefined {
  const url = values['webhook-url'] ?? env.ALERTBRIDGE_WEBHOOK_URL;
  if (url) checkUrl(url, '--webhook-url');
  return url || undefined;
}

export function checkUrl(url: string, what: string): void {
  let ok = false;
  try {
    ok = /^https?:$/.test(new URL(url).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw new UsageError(`${what}: "${url}" is not an http(s) URL`);
}

export function write(stream: NodeJS.WritableStream, text: string): void {
  stream.write(text.endsWith('\n') ? text : `${text}\n`);
}

export function one(positionals: string[], what: string): string {
  if (positionals.length !== 1) throw new UsageError(positionals.length === 0 ? `${what} is missing` : `one ${what} only (got ${positionals.length})`);
  return positionals[0]!;
}
