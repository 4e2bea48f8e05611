#!/usr/bin/env node
/** The `alertbridge` command (docs/client.md): send, run, watch, list, show, read, ack, resolve, reopen. */
import { main } from './cli/main.js';

process.exitCode = await main(process.argv.slice(2), { env: process.env, stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
