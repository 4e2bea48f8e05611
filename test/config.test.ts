import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('settings that only make sense together', () => {
  it('refuses MEDIA_ORPHAN_GRACE_HOURS=0 with DATABASE_URL, naming the setting and why', () => {
    const env = { DATABASE_URL: 'postgres://u@db.example:5432/alertbridge', MEDIA_ORPHAN_GRACE_HOURS: '0', LOG_LEVEL: 'silent' };
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(/MEDIA_ORPHAN_GRACE_HOURS: must be above 0 with DATABASE_URL: nodes share MEDIA_DIR/);
  });

  it('accepts a grace of 0 on SQLite (one process: files are deleted at release, as before the grace period existed), and any grace above 0 on PostgreSQL', () => {
    expect(loadConfig({ MEDIA_ORPHAN_GRACE_HOURS: '0', LOG_LEVEL: 'silent' }).mediaOrphanGraceMs).toBe(0);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db.example:5432/a', MEDIA_ORPHAN_GRACE_HOURS: '0.5', LOG_LEVEL: 'silent' }).mediaOrphanGraceMs).toBe(1_800_000);
  });
});
