import { runMcpStdio } from '../mcp-stdio.js';
import { checkUrl, parse, UsageError, type CliIo } from './context.js';

/**
 * `mcp`: the service's MCP tools over stdio for assistants that only speak stdio. stdout carries
 * nothing but protocol lines, so settings problems are usage errors on stderr before it starts.
 */
export async function mcp(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parse(args, {});
  if (positionals.length > 0) throw new UsageError(`unexpected "${positionals[0]}": mcp takes no arguments`);
  const url = values.url ?? io.env.ALERTBRIDGE_URL;
  const token = values.token ?? io.env.ALERTBRIDGE_TOKEN;
  if (!url) throw new UsageError('the service address is missing: pass --url or set ALERTBRIDGE_URL');
  if (!token) throw new UsageError('an API token is missing: pass --token or set ALERTBRIDGE_TOKEN');
  checkUrl(url, '--url');
  await runMcpStdio({ url: url.replace(/\/+$/, ''), token, input: io.stdin, output: io.stdout });
  return 0;
}
