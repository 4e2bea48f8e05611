import { describe, expect, it } from 'vitest';
import { groupUpdate, mergeStep } from '../../src/domain/webhook/ingest-formats.js';
import { PAYLOAD_LIMITS } from '../../src/domain/webhook/payload.js';

describe('group state table', () => {
  const key = () => 'alt_fresh';
  it('a repeat writes nothing; a status change resurfaces and notifies; firing again bills a new episode; other changes are silent', () => {
    expect(groupUpdate({ status: 'firing', stateFingerprint: 'a' }, { status: 'firing', stateFingerprint: 'a' }, key)).toEqual({ repeat: true });
    const am = { id: null, name: 'Alertmanager' };
    expect(groupUpdate({ status: 'firing', stateFingerprint: 'a' }, { status: 'resolved', stateFingerprint: 'b' }, key, am)).toEqual({
      repeat: false, resurfaceAs: 'alt_fresh', notify: 'alert.created', countUsage: false,
      lifecycle: { to: 'resolved', actor: am, via: 'integration', countOccurrence: false },
    });
    expect(groupUpdate({ status: 'resolved', stateFingerprint: 'b' }, { status: 'firing', stateFingerprint: 'a' }, key, am)).toEqual({
      repeat: false, resurfaceAs: 'alt_fresh', notify: 'alert.created', countUsage: true,
      lifecycle: { to: 'open', actor: am, via: 'integration', countOccurrence: true },
    });
    expect(groupUpdate({ status: 'firing', stateFingerprint: 'a' }, { status: 'firing', stateFingerprint: 'c' }, key)).toEqual({ repeat: false, resurfaceAs: null, notify: null, countUsage: false });
  });
});

describe('job steps merged by name', () => {
  it('appends new jobs, replaces known ones in place, never un-finishes a job, survives a damaged stored value, stops at the step cap', () => {
    let steps = mergeStep(null, { name: 'build', state: 'running' });
    steps = mergeStep(JSON.stringify(steps), { name: 'test', state: 'pending' });
    steps = mergeStep(JSON.stringify(steps), { name: 'build', state: 'done', seconds: 12 });
    expect(steps).toEqual([{ name: 'build', state: 'done', seconds: 12 }, { name: 'test', state: 'pending' }]);
    expect(mergeStep(JSON.stringify(steps), { name: 'build', state: 'running' })).toEqual(steps);
    expect(mergeStep(JSON.stringify(steps), { name: 'build', state: 'failed', info: 'cancelled' })[0]).toEqual({ name: 'build', state: 'failed', info: 'cancelled' });
    expect(mergeStep('{not json', { name: 'a', state: 'running' })).toEqual([{ name: 'a', state: 'running' }]);
    expect(mergeStep('[1, null, {"x": 1}]', { name: 'a', state: 'running' })).toEqual([{ name: 'a', state: 'running' }]);
    const full = Array.from({ length: PAYLOAD_LIMITS.steps }, (_, i) => ({ name: `job ${i}`, state: 'done' as const }));
    expect(mergeStep(JSON.stringify(full), { name: 'one more', state: 'running' })).toHaveLength(PAYLOAD_LIMITS.steps);
    expect(mergeStep(JSON.stringify(full), { name: 'job 3', state: 'failed' })[3]!.state).toBe('failed');
  });
});
