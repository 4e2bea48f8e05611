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

describe('INVITATION_TTL_HOURS', () => {
  const HOUR = 3_600_000;
  it('defaults to a week and takes fractions of an hour', () => {
    expect(loadConfig({ LOG_LEVEL: 'silent' }).invitationTtlMs).toBe(168 * HOUR);
    expect(loadConfig({ LOG_LEVEL: 'silent', INVITATION_TTL_HOURS: '0.5' }).invitationTtlMs).toBe(HOUR / 2);
  });

  it('refuses a lifetime that is not a positive number of hours up to a year, naming the setting', () => {
    for (const bad of ['0', '-1', 'soon', '8761']) expect(() => loadConfig({ LOG_LEVEL: 'silent', INVITATION_TTL_HOURS: bad }), bad).toThrow(/INVITATION_TTL_HOURS/);
  });
});
