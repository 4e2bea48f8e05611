import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** The routes' receiver for the webhook bench: answers every delivery 200 at once, in its own process. */
let received = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
process.on('SIGTERM', () => {
  process.stderr.write(`received ${received} deliveries\n`);
  process.exit(0);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`LISTENING http://127.0.0.1:${(server.address() as AddressInfo).port}\n`));
