import { describe, expect, it } from 'vitest';
import { LeadershipSignal, soleNode, whileLeader } from '../src/lib/singletons.js';

const quiet = { debug: () => {}, info: () => {}, error: () => {} };

/** A singleton that records its lifecycle; `gate` holds its start until released. */
function recorder(log: string[], opts: { gate?: Promise<void>; failFirst?: boolean } = {}) {
  let starts = 0;
  return async () => {
    const n = ++starts;
    log.push(`start ${n}`);
    if (opts.gate) await opts.gate;
    if (opts.failFirst && n === 1) throw new Error('gateway refused');
    log.push(`running ${n}`);
    return { name: 'x', stop: async () => void log.push(`stop ${n}`) };
  };
}

describe('singletons run on the leader only', () => {
  it('a sole node (SQLite) runs the part from the start and stops it at shutdown', async () => {
    const log: string[] = [];
    const part = whileLeader(soleNode(), 'retention', recorder(log), quiet);
    await part.settled;
    expect(part.running).toBe(true);
    await part.stop();
    expect(part.running).toBe(false);
    expect(log).toEqual(['start 1', 'running 1', 'stop 1']);
  });

  it('flips queued before the first step collapse: the leadership at the time of the step decides', async () => {
    const log: string[] = [];
    const lead = new LeadershipSignal(true);
    const part = whileLeader(lead, 'discord', recorder(log), quiet);
    lead.set(false);
    await part.settled;
    expect(log).toEqual([]);
    await part.stop();
  });

  it('a follower starts nothing; becoming the leader starts it, losing it stops it, and again', async () => {
    const log: string[] = [];
    const lead = new LeadershipSignal(false);
    const part = whileLeader(lead, 'discord', recorder(log), quiet);
    await part.settled;
    expect(log).toEqual([]);
    lead.set(true);
    await new Promise((r) => setImmediate(r));
    expect(part.running).toBe(true);
    lead.set(false);
    await new Promise((r) => setImmediate(r));
    expect(part.running).toBe(false);
    lead.set(true);
    await new Promise((r) => setImmediate(r));
    await part.stop();
    expect(log).toEqual(['start 1', 'running 1', 'stop 1', 'start 2', 'running 2', 'stop 2']);
  });

  it('leadership lost during a slow start: the part is stopped once the start finishes, never left running', async () => {
    const log: string[] = [];
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const lead = new LeadershipSignal(true);
    const part = whileLeader(lead, 'discord', recorder(log, { gate }), quiet);
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(['start 1']);
    lead.set(false);
    lead.set(true);
    lead.set(false);
    open();
    await part.settled;
    await part.stop();
    expect(log).toEqual(['start 1', 'running 1', 'stop 1']);
    expect(part.running).toBe(false);
  });

  it('a start that fails is logged and tried again the next time the node leads', async () => {
    const log: string[] = [];
    const errors: string[] = [];
    const lead = new LeadershipSignal(true);
    const part = whileLeader(lead, 'discord', recorder(log, { failFirst: true }), { ...quiet, error: (_o: object, msg: string) => void errors.push(msg) });
    await part.settled;
    expect(part.running).toBe(false);
    expect(errors).toEqual(['starting a singleton failed; tried again when this node next leads']);
    lead.set(false);
    lead.set(true);
    await new Promise((r) => setImmediate(r));
    expect(part.running).toBe(true);
    await part.stop();
    expect(log).toEqual(['start 1', 'start 2', 'running 2', 'stop 2']);
  });

  it('after shutdown, leadership changes start nothing', async () => {
    const log: string[] = [];
    const lead = new LeadershipSignal(false);
    const part = whileLeader(lead, 'retention', recorder(log), quiet);
    await part.stop();
    lead.set(true);
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual([]);
  });
});
