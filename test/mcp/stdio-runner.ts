import { runMcpStdio } from '../../packages/client/src/mcp-stdio.js';

// `alertbridge mcp` as a process, for test/mcp/stdio.test.ts: the proxy on this process's stdin and stdout.
const url = process.env.ALERTBRIDGE_URL;
const token = process.env.ALERTBRIDGE_TOKEN;
if (!url || !token) {
  process.stderr.write('set ALERTBRIDGE_URL and ALERTBRIDGE_TOKEN\n');
  process.exit(2);
}
await runMcpStdio({ url, token, input: process.stdin, output: process.stdout });
