import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { describePg, TEST_DATABASE_URL } from '../helpers/pg.js';

/**
 * `npm run bench -- cluster --json`: the PostgreSQL figures (one and two nodes) beside SQLite's, as
 * a smoke test of the plumbing (BENCH_QUICK=1, half-second loads), not a measurement; and, without
 * a database, a skip that says so in the report and in the JSON.
 */
function runBench(env: Record<string, string | undefined>, suite = 'cluster'): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', suite, '--json'], {
      env: { ...process.env, BENCH_QUICK: '1', BENCH_SECONDS: '0.5', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const lastJson = (stdout: string) => JSON.parse(stdout.trimEnd().split('\n').at(-1)!) as Record<string, unknown>;

describe('npm run bench -- cluster, without a database', () => {
  it('says it was skipped and why, and names the skip in the JSON', async () => {
    const { code, stdout, stderr } = await runBench({ TEST_DATABASE_URL: '', BENCH_DATABASE_URL: '' });
    expect(code, stderr).toBe(0);
    expect(stdout).toContain('Skipped: set BENCH_DATABASE_URL (or TEST_DATABASE_URL)');
    expect(lastJson(stdout)).toEqual({ clusterSkipped: 1 });
  }, 60_000);
});

describePg('npm run bench -- cluster --json on PostgreSQL', () => {
  it('reports the webhook and read figures on PostgreSQL, one node and two, beside SQLite', async () => {
    // Two rounds: each figure is then the median of both, and each round is printed.
    const { code, stdout, stderr } = await runBench({ BENCH_DATABASE_URL: TEST_DATABASE_URL, BENCH_ROUNDS: '2' });
    expect(code, stderr).toBe(0);
    const figures = lastJson(stdout);
    expect(figures.clusterRounds).toBe(2);
    expect(stdout).toMatch(/median of 2 rounds, alternating\. Per round: webhook PostgreSQL ÷ SQLite \d+\.\d\d \/ \d+\.\d\d;/);
    for (const key of [
      'sqliteWebhookReqPerSec',
      'sqliteWebhookCpuUsPerReq',
      'sqlitePageFirstP99Ms',
      'pgWebhookReqPerSec1Node',
      'pgWebhookCpuUsPerReq1Node',
      'pgPageFirstP99Ms',
      'pgWebhookReqPerSec2Nodes',
      'pgWebhookCpuUsPerReq2Nodes',
      'pgPageFirstP99Ms2Nodes',
      'pgWebhookToSqliteRatio',
      'pgPageFirstToSqliteRatio',
      // The test server runs on this machine, so its backends' CPU time is readable in /proc.
      'pgServerCpuUsPerAlert',
      // The engines' floors on the same databases (bench/servers/engine-floor.ts).
      'pgPageFirstCpuUsPerReq1Node',
      'pgFloorWebhookReqPerSec',
      'pgFloorWebhookToSqliteRatio',
      'pgFloorPageReqPerSec',
      'pgFloorPageToSqliteRatio',
    ]) {
      expect(figures[key], key).toEqual(expect.any(Number));
      expect(figures[key] as number, key).toBeGreaterThan(0);
    }
    expect(figures).not.toHaveProperty('failedSuites');
    expect(stdout).toContain('| PostgreSQL, two nodes (connections split evenly) |');
    // No request failed in any configuration (the last column).
    const rows = stdout.split('\n').filter((l) => /^\| (SQLite|PostgreSQL|webhook floor|page floor)/.test(l));
    expect(rows).toHaveLength(7);
    for (const row of rows) expect(row.trimEnd().endsWith('| 0 |'), row).toBe(true);
  }, 180_000);
});

describePg('npm run bench -- pgcost --json on PostgreSQL', () => {
  it('prices the alerts table part by part: the server CPU per alert of each variant beside the full schema', async () => {
    const { code, stdout, stderr } = await runBench({ BENCH_DATABASE_URL: TEST_DATABASE_URL }, 'pgcost');
    expect(code, stderr).toBe(0);
    const figures = lastJson(stdout);
    for (const key of ['pgCostUsPerAlertFull', 'pgCostUsPerAlertNoSearchVector', 'pgCostUsPerAlertFull2']) {
      expect(figures[key], key).toEqual(expect.any(Number));
      expect(figures[key] as number, key).toBeGreaterThan(0);
    }
    expect(stdout).toContain('| without the search vector (its generated column and GIN index) |');
  }, 180_000);
});
