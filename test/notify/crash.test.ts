import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { ManualClock } from '../../src/lib/clock.js';
import { INTERRUPTED, startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import type { Mailer } from '../../src/notify/mailer.js';
import { createServices, type SqliteServices as Services } from '../../src/services.js';
import { createApp } from '../../src/http/app.js';
import { createHarness, postAlert, seedWorkspace, tempDir } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { FAST_RETRY, MAIL_FROM } from './setup.js';
import { eventually } from '../helpers/poll.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/worker-process.ts');

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function dataDir(): string {
  const dir = tempDir();
  cleanups.unshift(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function servicesOn(dir: string, sink: SmtpSink): Services {
  const s = createServices(loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'http://alertbridge.test', LOG_LEVEL: 'silent', SMTP_URL: sink.url, MAIL_FROM }));
  cleanups.push(() => s.close());
  return s;
}

function start(s: Services, opts: Parameters<typeof startNotifier>[1] = {}): Notifier {
  const n = startNotifier(s, { retry: FAST_RETRY, ...opts });
  cleanups.push(() => n.stop());
  return n;
}

const states = (s: Services) =>
  s.db.sqlite.prepare('SELECT user_id AS userId, state, last_error AS lastError FROM notification_deliveries ORDER BY job_id, user_id').all() as {
    userId: string;
    state: string;
    lastError: string | null;
  }[];

describe('crash and restart', () => {
  it('jobs enqueued while no worker runs are delivered by a new process on the same DATA_DIR, exactly once', async () => {
    const sink = await SmtpSink.start();
    cleanups.push(() => sink.close());
    const dir = dataDir();
    // First "process": takes webhooks, but stops before its worker ran.
    const h = createHarness({ dir, env: { SMTP_URL: sink.url, MAIL_FROM } });
    const seed = await seedWorkspace(h.services);
    await postAlert(h, seed.general.webhookToken, { title: 'one' });
    await postAlert(h, seed.general.webhookToken, { title: 'two' });
    h.services.close();
    expect(sink.messages).toHaveLength(0);

    // Second process: rebuilds from the outbox.
    const s2 = servicesOn(dir, sink);
    const n2 = start(s2);
    await sink.waitFor(4);
    await n2.whenIdle();
    await n2.stop();
    // Third process: nothing left to send.
    const s3 = servicesOn(dir, sink);
    await start(s3).whenIdle();
    expect(sink.messages.map((m) => `${m.rcpt[0]} ${m.subject}`).sort()).toEqual([
      'member@acme.test [INFO] #general — one',
      'member@acme.test [INFO] #general — two',
      'owner@acme.test [INFO] #general — one',
      'owner@acme.test [INFO] #general — two',
    ]);
  });

  it('a worker that dies mid-send leaves the claimed e-mail alone and delivers the unclaimed ones after restart', async () => {
    const sink = await SmtpSink.start();
    cleanups.push(() => sink.close());
    const dir = dataDir();
    const s1 = servicesOn(dir, sink);
    const seed = await seedWorkspace(s1);
    // One SMTP conversation at a time, and it never comes back: the process "dies" in the middle of it.
    const stuck: Mailer = { send: () => new Promise(() => {}), close: () => {} };
    const n1 = startNotifier(s1, { mailer: stuck, concurrency: 1 });
    const res = await createApp(s1).request(`/api/webhook/${seed.general.webhookToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'mid-send', level: 'error' }),
    });
    expect(res.status).toBe(201);
    await eventually(() => states(s1).some((d) => d.state === 'sending'), 'one delivery claimed');
    expect(states(s1).map((d) => d.state).sort()).toEqual(['pending', 'sending']);
    void n1; // abandoned, like a killed process: no stop(), no further writes

    const s2 = servicesOn(dir, sink);
    const n2 = start(s2);
    await sink.waitFor(1);
    await n2.whenIdle();
    expect(sink.messages).toHaveLength(1);
    const after = states(s2);
    expect(after.map((d) => d.state).sort()).toEqual(['failed', 'sent']);
    expect(after.find((d) => d.state === 'failed')!.lastError).toBe(INTERRUPTED);
  });

  it('kill -9 during the SMTP conversation: after restart the e-mail is not sent a second time', async () => {
    const sink = await SmtpSink.start();
    cleanups.push(() => sink.close());
    const dir = dataDir();
    const h = createHarness({ dir, env: { SMTP_URL: sink.url, MAIL_FROM } });
    const seed = await seedWorkspace(h.services);
    h.services.close();

    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: { ...process.env, DATA_DIR: dir, PUBLIC_URL: 'http://alertbridge.test', SMTP_URL: sink.url, MAIL_FROM },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    cleanups.push(() => child.kill('SIGKILL'));
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
        const m = /\{"port":(\d+)\}/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.once('exit', (code) => reject(new Error(`worker process exited early (${code})`)));
    });

    sink.hold(); // the server has the message but its final "250 OK" never reaches the sender
    const res = await fetch(`http://127.0.0.1:${port}/api/webhook/${seed.general.webhookToken}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Sent once, whatever happens', level: 'error' }),
    });
    expect(res.status).toBe(201);
    await sink.waitFor(2); // both recipients' messages are on the server, unacknowledged
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
    sink.release();

    const s2 = servicesOn(dir, sink);
    const n2 = start(s2);
    await n2.whenIdle();
    expect(sink.messages).toHaveLength(2);
    expect(sink.messages.map((m) => m.rcpt[0]).sort()).toEqual(['member@acme.test', 'owner@acme.test']);
    expect(states(s2).map((d) => [d.state, d.lastError])).toEqual([
      ['failed', INTERRUPTED],
      ['failed', INTERRUPTED],
    ]);
  });

  it('a database error while recording "sent" after the SMTP server accepted is logged, never treated as a failed send', async () => {
    const sink = await SmtpSink.start();
    cleanups.push(() => sink.close());
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const clock = new ManualClock();
    const h = createHarness({ env: { SMTP_URL: sink.url, MAIL_FROM }, overrides: { clock, logger } });
    cleanups.push(() => h.close());
    const seed = await seedWorkspace(h.services);
    const db = h.services.db.sqlite;
    // A real SQLite error on exactly that write (as a full disk or an I/O error would raise), after the send succeeded.
    db.exec(`CREATE TRIGGER refuse_sent BEFORE UPDATE OF state ON notification_deliveries WHEN NEW.state = 'sent'
             BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`);
    const n1 = start(h.services);
    await postAlert(h, seed.general.webhookToken, { title: 'Accepted, then the write failed', level: 'error' });
    await sink.waitFor(2);
    await n1.whenIdle();
    // Not back to pending for a retry: the rows stay claimed, with no SMTP error recorded against them.
    expect(states(h.services).map((d) => [d.state, d.lastError])).toEqual([
      ['sending', null],
      ['sending', null],
    ]);
    const logged = lines.filter((l) => l.includes('recording it failed')).map((l) => JSON.parse(l) as { level: number; err: { message: string } });
    expect(logged).toHaveLength(2);
    for (const l of logged) expect(l).toMatchObject({ level: 50, err: { message: 'disk I/O error (simulated)' } });
    expect(lines.filter((l) => l.includes('will retry'))).toEqual([]);
    // Long past any backoff: still nothing resent.
    clock.advance(60 * 60_000);
    n1.wake();
    await n1.whenIdle();
    expect(sink.messages).toHaveLength(2);

    // The next start records them as interrupted and does not send them again.
    await n1.stop();
    db.exec('DROP TRIGGER refuse_sent');
    const n2 = start(h.services);
    await n2.whenIdle();
    expect(states(h.services).map((d) => [d.state, d.lastError])).toEqual([
      ['failed', INTERRUPTED],
      ['failed', INTERRUPTED],
    ]);
    expect(sink.messages.map((m) => m.rcpt[0]).sort()).toEqual(['member@acme.test', 'owner@acme.test']);
  });
});
