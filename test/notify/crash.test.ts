import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MAIL_SEND_LEASE_MS } from '../../src/db/shared/outbox.js';
import { ManualClock } from '../../src/lib/clock.js';
import { INTERRUPTED, startNotifier, type Notifier } from '../../src/notify/outbox-worker.js';
import type { Mailer } from '../../src/notify/mailer.js';
import type { Services } from '../../src/services.js';
import { testEngine, createEngineHarness, type Harness, type HarnessOptions, postAlert, seedWorkspace } from '../helpers/harness.js';
import { SmtpSink } from '../helpers/smtp-sink.js';
import { FAST_RETRY, MAIL_FROM } from './setup.js';
import { eventually } from '../helpers/poll.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures/worker-process.ts');

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function smtpSink(): Promise<SmtpSink> {
  const sink = await SmtpSink.start();
  cleanups.push(() => sink.close());
  return sink;
}

/**
 * An installation on testEngine() (a DATA_DIR with its SQLite file, or a PostgreSQL database) whose
 * first service process is running; `restart` stops it and starts the next one on the same data.
 */
async function installation(sink: SmtpSink, opts: HarnessOptions = {}): Promise<Harness> {
  const h = await createEngineHarness(testEngine(), { ...opts, env: { SMTP_URL: sink.url, MAIL_FROM, ...opts.env } });
  cleanups.push(() => h.close());
  return h;
}

/**
 * The clock of a process started after a crash, once the crashed sends' lease is over. On PostgreSQL
 * a start records a `sending` row as interrupted only when it was claimed longer than the send lease
 * ago (it could be another live node's conversation: src/db/shared/outbox-statements.ts); on SQLite the one
 * process's start takes every such row, whatever the time.
 */
const afterTheLease = () => ({ clock: new ManualClock(Date.now() + MAIL_SEND_LEASE_MS + 1) });

function start(s: Services, opts: Parameters<typeof startNotifier>[1] = {}): Notifier {
  const n = startNotifier(s, { retry: FAST_RETRY, ...opts });
  cleanups.push(() => n.stop());
  return n;
}

interface DeliveryState {
  userId: string;
  state: string;
  lastError: string | null;
}
const states = (h: Harness) =>
  h.query<DeliveryState & Record<string, unknown>>('SELECT user_id AS "userId", state, last_error AS "lastError" FROM notification_deliveries ORDER BY job_id, user_id');

/** A real database error on the write recording a delivery `sent` (as a full disk or an I/O error would raise), in each engine's trigger syntax. */
const REFUSE_SENT = {
  sqlite: {
    create: [
      `CREATE TRIGGER refuse_sent BEFORE UPDATE OF state ON notification_deliveries WHEN NEW.state = 'sent'
       BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`,
    ],
    drop: ['DROP TRIGGER refuse_sent'],
  },
  postgres: {
    create: [
      `CREATE FUNCTION refuse_sent() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk I/O error (simulated)'; END $$`,
      `CREATE TRIGGER refuse_sent BEFORE UPDATE OF state ON notification_deliveries FOR EACH ROW WHEN (NEW.state = 'sent') EXECUTE FUNCTION refuse_sent()`,
    ],
    drop: ['DROP TRIGGER refuse_sent ON notification_deliveries', 'DROP FUNCTION refuse_sent()'],
  },
};

describe('crash and restart', () => {
  it('jobs enqueued while no worker runs are delivered by a new process on the same data, exactly once', async () => {
    const sink = await smtpSink();
    // First process: takes webhooks, but stops before its worker ran.
    const h = await installation(sink);
    const seed = await seedWorkspace(h.services);
    for (const title of ['one', 'two']) expect((await postAlert(h, seed.general.webhookToken, { title })).res.status).toBe(201);
    await h.stopNodes();
    expect(sink.messages).toHaveLength(0);

    // Second process: rebuilds from the outbox.
    const n2 = start((await h.restart()).services);
    await sink.waitFor(4);
    await n2.whenIdle();
    await n2.stop();
    // Third process: nothing left to send.
    await start((await h.restart()).services).whenIdle();
    expect(sink.messages.map((m) => `${m.rcpt[0]} ${m.subject}`).sort()).toEqual([
      'member@acme.test [INFO] #general — one',
      'member@acme.test [INFO] #general — two',
      'owner@acme.test [INFO] #general — one',
      'owner@acme.test [INFO] #general — two',
    ]);
  });

  it('a worker that dies mid-send leaves the claimed e-mail alone and delivers the unclaimed ones after restart', async () => {
    const sink = await smtpSink();
    const h = await installation(sink);
    const seed = await seedWorkspace(h.services);
    // One SMTP conversation at a time, and it never comes back: the process "dies" in the middle of it.
    const stuck: Mailer = { send: () => new Promise(() => {}), close: () => {} };
    const n1 = startNotifier(h.services, { mailer: stuck, concurrency: 1 });
    expect((await postAlert(h, seed.general.webhookToken, { title: 'mid-send', level: 'error' })).res.status).toBe(201);
    await eventually(async () => (await states(h)).some((d) => d.state === 'sending'), 'one delivery claimed');
    expect((await states(h)).map((d) => d.state).sort()).toEqual(['pending', 'sending']);
    void n1; // abandoned, like a killed process: no stop(), no further writes

    const n2 = start((await h.restart({ overrides: afterTheLease() })).services);
    await sink.waitFor(1);
    await n2.whenIdle();
    expect(sink.messages).toHaveLength(1);
    const after = await states(h);
    expect(after.map((d) => d.state).sort()).toEqual(['failed', 'sent']);
    expect(after.find((d) => d.state === 'failed')!.lastError).toBe(INTERRUPTED);
  });

  it('kill -9 during the SMTP conversation: after restart the e-mail is not sent a second time', async () => {
    const sink = await smtpSink();
    const h = await installation(sink);
    const seed = await seedWorkspace(h.services);
    await h.stopNodes();

    // The service process on the same data: DATA_DIR, and DATABASE_URL on PostgreSQL (never one inherited from the shell).
    const { DATABASE_URL: _inherited, ...env } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: { ...env, DATA_DIR: h.dir, ...(h.config.databaseUrl ? { DATABASE_URL: h.config.databaseUrl } : {}), PUBLIC_URL: 'http://alertbridge.test', SMTP_URL: sink.url, MAIL_FROM },
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

    const n2 = start((await h.restart({ overrides: afterTheLease() })).services);
    await n2.whenIdle();
    expect(sink.messages).toHaveLength(2);
    expect(sink.messages.map((m) => m.rcpt[0]).sort()).toEqual(['member@acme.test', 'owner@acme.test']);
    expect((await states(h)).map((d) => [d.state, d.lastError])).toEqual([
      ['failed', INTERRUPTED],
      ['failed', INTERRUPTED],
    ]);
  });

  it('a database error while recording "sent" after the SMTP server accepted is logged, never treated as a failed send', async () => {
    const sink = await smtpSink();
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const clock = new ManualClock();
    const h = await installation(sink, { overrides: { clock, logger } });
    const seed = await seedWorkspace(h.services);
    // A real database error on exactly that write, after the send succeeded.
    const trigger = REFUSE_SENT[h.engine];
    for (const sql of trigger.create) await h.query(sql);
    const n1 = start(h.services);
    await postAlert(h, seed.general.webhookToken, { title: 'Accepted, then the write failed', level: 'error' });
    await sink.waitFor(2);
    await n1.whenIdle();
    // Not back to pending for a retry: the rows stay claimed, with no SMTP error recorded against them.
    expect((await states(h)).map((d) => [d.state, d.lastError])).toEqual([
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

    // The next start (an hour after the claims: past the send lease on PostgreSQL) records them as interrupted and does not send them again.
    await n1.stop();
    for (const sql of trigger.drop) await h.query(sql);
    const n2 = start(h.services);
    await n2.whenIdle();
    expect((await states(h)).map((d) => [d.state, d.lastError])).toEqual([
      ['failed', INTERRUPTED],
      ['failed', INTERRUPTED],
    ]);
    expect(sink.messages.map((m) => m.rcpt[0]).sort()).toEqual(['member@acme.test', 'owner@acme.test']);
  });
});
