import { afterAll, beforeAll, expect, it } from 'vitest';
import { openPg, type PgDb } from '../../src/db/pg/connection.js';
import { PgExecutor } from '../../src/db/pg/executor.js';
import { SqlAppSecretRows } from '../../src/db/shared/auth-rows.js';
import { appSecret, loadAppSecrets, newAppSecretValue, UNSUBSCRIBE_SECRET_NAME } from '../../src/domain/auth/app-secrets.js';
import { systemClock } from '../../src/lib/clock.js';
import { loadVapidKeys, newVapidKeysValue, VAPID_SECRET_NAME } from '../../src/notify/push/vapid.js';
import { describePg, freshDatabase, type FreshDatabase } from '../helpers/pg.js';

describePg('app secrets on PostgreSQL', () => {
  let fresh: FreshDatabase;
  const nodes: PgDb[] = [];
  beforeAll(async () => {
    fresh = await freshDatabase();
    for (let i = 0; i < 6; i++) nodes.push(await openPg(fresh.url, { max: 2 }));
  });
  afterAll(async () => {
    for (const n of nodes) await n.close();
    await fresh.drop();
  });

  it('six nodes starting together on an empty database each propose a value and all keep the one stored first', async () => {
    const fresh = { [UNSUBSCRIBE_SECRET_NAME]: newAppSecretValue, [VAPID_SECRET_NAME]: newVapidKeysValue };
    const loaded = await Promise.all(nodes.map((n) => loadAppSecrets(new SqlAppSecretRows(new PgExecutor(n.pool)), fresh, Date.now())));
    const keys = loaded.map((rows) => appSecret(rows, systemClock, UNSUBSCRIBE_SECRET_NAME).toString('base64'));
    const vapid = loaded.map((rows) => loadVapidKeys(rows, systemClock).publicKey);
    expect(new Set(keys).size).toBe(1);
    expect(new Set(vapid).size).toBe(1);
    const { rows } = await nodes[0]!.pool.query<{ name: string; value: string }>('SELECT name, value FROM app_secrets ORDER BY name');
    expect(rows.map((r) => r.name)).toEqual([UNSUBSCRIBE_SECRET_NAME, VAPID_SECRET_NAME]);
    expect(rows[0]!.value).toBe(keys[0]);
  });

  it('a secret not loaded at start is an error, never a fresh value per node', async () => {
    const rows = await loadAppSecrets(new SqlAppSecretRows(new PgExecutor(nodes[0]!.pool)), { [UNSUBSCRIBE_SECRET_NAME]: newAppSecretValue }, Date.now());
    expect(() => appSecret(rows, systemClock, 'something-else')).toThrow(/was not loaded at start/);
  });
});
