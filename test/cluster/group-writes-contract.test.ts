import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqliteAlertStore } from '../../src/db/sqlite/alert-store/index.js';
import { PgAlertReads } from '../../src/db/pg/alert-store/reads.js';
import { PgGroupWrites } from '../../src/db/pg/alert-store/group-writes.js';
import { PgWebhookWrites } from '../../src/db/pg/alert-store/webhook-writes.js';
import { WriteBatcher } from '../../src/db/sqlite/write-batcher.js';
import type { AlertGroupWrites, GroupUpdate, StoredGroupState, StoredRunSteps } from '../../src/domain/alert-groups.js';
import type { AlertContent, AlertReads, NewStandardAlert, RunState } from '../../src/domain/alert-store.js';
import { describePg } from '../helpers/pg.js';
import { pgEngine, sqliteEngine, type EngineHandle, type Fixture } from './engines.js';

/**
 * One contract, two engines, for the writes that update an alert in place by a key of the
 * format's own: Alertmanager/Grafana groups and GitHub job steps merged into a run. Each method is
 * one unit; rows are checked through another connection, as another node would read them.
 */
const FIXTURE: Fixture = [
  ['workspaces', [{ id: 'w1', name: 'Acme', created_at: 1 }]],
  ['users', [{ id: 'u1', email: 'o@a.test', name: 'Owner', created_at: 1 }]],
  ['memberships', [{ workspace_id: 'w1', user_id: 'u1', role: 'owner', created_at: 1 }]],
  ['channels', [{ id: 'ch1', workspace_id: 'w1', name: 'Ops', slug: 'ops', icon: '🔥', is_private: false, webhook_token: 'whk_1', created_at: 1 }]],
];
const owner = { tokenId: 't1', userId: 'u1', workspaceId: 'w1' };
const NOW = Date.UTC(2026, 10, 20, 12);

const content = (title: string, run?: { id: string; state: RunState; steps: string | null }): AlertContent => ({
  title, level: 'ERROR', emoji: '', message: `message of ${title}`, fieldsJson: '[]', linkUrl: null, linkText: null, source: 'alertmanager',
  actorJson: null, workflowRunId: run?.id ?? null, workflowState: run?.state ?? null, workflowStepsJson: run?.steps ?? null,
  workflowError: null, dedupKey: null, metadataJson: null,
});
const file = (key: string) => ({ mediaKey: key, mime: 'image/png', kind: 'image' as const, name: `${key}.png`, size: 10 });
const alert = (id: string, over: Partial<NewStandardAlert> = {}): NewStandardAlert => ({
  alertId: id, channelId: 'ch1', workspaceId: 'w1', content: content(`title ${id}`), attachments: [], notify: 'alert.created', now: NOW, ...over,
});
const firing = (fp: string) => ({ key: 'alertmanager:g1', status: 'firing' as const, stateFingerprint: fp });

interface Engine extends EngineHandle {
  groups: AlertGroupWrites;
  otherGroups: AlertGroupWrites;
  reads: AlertReads;
}

function contract(open: () => Promise<Engine>) {
  let e: Engine;
  beforeAll(async () => void (e = await open()));
  afterAll(() => e.close());
  const unread = async () => (await e.reads.visibleChannels(owner)).find((c) => c.id === 'ch1')!.unread;
  const counts = () => e.query('SELECT (SELECT count(*) FROM alerts) AS a, (SELECT count(*) FROM alert_events) AS ev, (SELECT count(*) FROM notification_jobs) AS j, (SELECT events FROM usage_counters) AS u');

  it('inserts a new group with its alert, group row, files, outbox job, change event and usage in one unit', async () => {
    const saved = await e.groups.saveGroup(alert('alt_01', { attachments: [file('a')] }), firing('fp1'), () => {
      throw new Error('not called for a new group');
    });
    expect(saved).toEqual({ alertId: 'alt_01', created: true, changed: true, notified: true, released: [] });
    expect(await e.query('SELECT channel_id AS c, group_key AS k, alert_id AS a, status, state_fingerprint AS fp, updated_at AS t FROM alert_groups'))
      .toEqual([{ c: 'ch1', k: 'alertmanager:g1', a: 'alt_01', status: 'firing', fp: 'fp1', t: NOW }]);
    expect(await counts()).toEqual([{ a: 1, ev: 1, j: 1, u: 1 }]);
    expect(await e.query('SELECT media_key AS k FROM alert_attachments')).toEqual([{ k: 'a' }]);
  });

  it('writes nothing for a repeat of the same state, releasing the files fetched for it, but stores the idempotency answer', async () => {
    const seen: StoredGroupState[] = [];
    const before = await counts();
    const saved = await e.otherGroups.saveGroup(
      alert('alt_02', { attachments: [file('b')], idempotency: { key: 'k2', hash: 'h', answer: (s) => s.alertId } }),
      firing('fp1'),
      (s): GroupUpdate => {
        seen.push(s);
        return { repeat: true };
      },
    );
    expect(seen).toMatchObject([{ status: 'firing', stateFingerprint: 'fp1' }]);
    expect(saved).toEqual({ alertId: 'alt_01', created: false, changed: false, notified: false, released: ['b'] });
    expect(await counts()).toEqual(before);
    expect(await e.query('SELECT media_key AS k FROM alert_attachments')).toEqual([{ k: 'a' }]);
    expect(await e.query('SELECT response_json AS j FROM idempotency_keys WHERE key = ?', ['k2'])).toEqual([{ j: '"alt_01"' }]);
  });

  it('updates the group in place: new content and files, resurfaced, notified, counted once more', async () => {
    await e.reads.markAllRead('u1', ['ch1'], NOW);
    expect(await unread()).toBe(0);
    const saved = await e.groups.saveGroup(
      alert('alt_03', { content: content('resolved now'), attachments: [file('c')], now: NOW + 5 }),
      { key: 'alertmanager:g1', status: 'resolved', stateFingerprint: 'fp2' },
      () => ({ repeat: false, resurfaceAs: 'alt_03', notify: 'alert.created', countUsage: true }),
    );
    expect(saved).toEqual({ alertId: 'alt_01', created: false, changed: true, notified: true, released: ['a'] });
    expect(await e.query('SELECT title, level, activity_key AS k, seq, updated_at AS t FROM alerts')).toEqual([
      { title: 'resolved now', level: 'ERROR', k: 'alt_03', seq: 2, t: NOW + 5 },
    ]);
    expect(await e.query('SELECT alert_id AS a, status, state_fingerprint AS fp, updated_at AS t FROM alert_groups'))
      .toEqual([{ a: 'alt_01', status: 'resolved', fp: 'fp2', t: NOW + 5 }]);
    expect(await e.query('SELECT media_key AS k FROM alert_attachments')).toEqual([{ k: 'c' }]);
    expect(await counts()).toEqual([{ a: 1, ev: 2, j: 2, u: 2 }]);
    expect(await unread()).toBe(1);
  });

  it('updates quietly when the domain says so: no resurfacing, no job, no usage, still an alert.updated change', async () => {
    await e.groups.saveGroup(alert('alt_04', { content: content('quiet') }), firing('fp3'), () => ({
      repeat: false, resurfaceAs: null, notify: null, countUsage: false,
    }));
    expect(await e.query('SELECT title, activity_key AS k FROM alerts')).toEqual([{ title: 'quiet', k: 'alt_03' }]);
    expect(await counts()).toEqual([{ a: 1, ev: 3, j: 2, u: 2 }]);
    expect(await e.query('SELECT media_key AS k FROM alert_attachments')).toEqual([{ k: 'c' }]);
  });

  it('rolls the whole unit back when the decision throws', async () => {
    const before = await counts();
    await expect(e.groups.saveGroup(alert('alt_05'), firing('fp4'), () => {
      throw new Error('refused');
    })).rejects.toThrow('refused');
    expect(await counts()).toEqual(before);
    expect(await e.query('SELECT state_fingerprint AS fp FROM alert_groups')).toEqual([{ fp: 'fp3' }]);
  });

  it('starts a new alert for the group once its alert was deleted', async () => {
    await e.exec('DELETE FROM alerts WHERE id = ?', ['alt_01']);
    expect(await e.query('SELECT count(*) AS n FROM alert_groups')).toEqual([{ n: 0 }]);
    const saved = await e.groups.saveGroup(alert('alt_06'), firing('fp5'), () => ({ repeat: true }));
    expect(saved).toMatchObject({ alertId: 'alt_06', created: true });
  });

  it('creates a group once when two nodes save it at once: the other decides from the committed state', async () => {
    const decided: StoredGroupState[] = [];
    const save = (g: AlertGroupWrites, id: string) =>
      g.saveGroup(alert(id), { key: 'grafana:race', status: 'firing', stateFingerprint: id }, (s) => {
        decided.push(s);
        return { repeat: false, resurfaceAs: null, notify: null, countUsage: false };
      });
    const results = await Promise.all([save(e.groups, 'alt_r1'), save(e.otherGroups, 'alt_r2')]);
    expect(results.map((r) => r.created).sort()).toEqual([false, true]);
    expect(new Set(results.map((r) => r.alertId)).size).toBe(1);
    expect(decided).toHaveLength(1);
    expect(await e.query('SELECT count(*) AS n FROM alert_groups WHERE group_key = ?', ['grafana:race'])).toEqual([{ n: 1 }]);
    expect(await e.query('SELECT count(*) AS n FROM alerts WHERE id IN (?, ?)', ['alt_r1', 'alt_r2'])).toEqual([{ n: 1 }]);
  });

  it('merges job steps into a run: inserted when missing, merged from the stored steps, ignored once finished', async () => {
    const run = (id: string, state: RunState, steps: string | null) => alert(id, { content: content('build', { id: 'run1', state, steps }), notify: 'workflow.started' });
    const seen: StoredRunSteps[] = [];
    expect(await e.groups.mergeRunStep(run('alt_j1', 'running', '["lint"]'), () => {
      throw new Error('not called for a new run');
    })).toEqual({ alertId: 'alt_j1', created: true, ignored: false });
    expect(await e.otherGroups.mergeRunStep(run('alt_j2', 'running', null), (s) => {
      seen.push(s);
      return JSON.stringify([...(JSON.parse(s.stepsJson ?? '[]') as string[]), 'test']);
    })).toEqual({ alertId: 'alt_j1', created: false, ignored: false });
    expect(seen).toEqual([{ state: 'running', stepsJson: '["lint"]' }]);
    expect(await e.query('SELECT workflow_steps_json AS s FROM alerts WHERE id = ?', ['alt_j1'])).toEqual([{ s: '["lint","test"]' }]);
    expect(await e.query('SELECT type FROM alert_events WHERE alert_id = ? ORDER BY id', ['alt_j1'])).toEqual([{ type: 'alert.created' }, { type: 'alert.updated' }]);
    await e.exec("UPDATE alerts SET workflow_state = 'passed' WHERE id = ?", ['alt_j1']);
    expect(await e.groups.mergeRunStep(run('alt_j3', 'running', null), () => null)).toEqual({ ignored: true, alertId: 'alt_j1', state: 'passed' });
    expect(await e.query('SELECT count(*) AS n FROM alert_events WHERE alert_id = ?', ['alt_j1'])).toEqual([{ n: 2 }]);
  });
}

describe('group writes contract: SQLite', () => {
  contract(async () => {
    const h = await sqliteEngine(FIXTURE);
    const store = new SqliteAlertStore(h.db.sqlite, new WriteBatcher(h.db.sqlite));
    const other = new SqliteAlertStore(h.other.sqlite, new WriteBatcher(h.other.sqlite));
    return { ...h, groups: store.groups, otherGroups: other.groups, reads: store.reads };
  });
});

describePg('group writes contract: PostgreSQL', () => {
  contract(async () => {
    const h = await pgEngine(FIXTURE);
    const groups = (pool: typeof h.db.pool) => new PgGroupWrites(pool, new PgWebhookWrites(pool));
    return { ...h, groups: groups(h.db.pool), otherGroups: groups(h.other.pool), reads: new PgAlertReads(h.db.pool) };
  });
});
