import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * `npm run bench -- --json` is read by scripts that track regressions: its
 * last stdout line must be one JSON object with the stable figure names. A
 * tiny configuration (BENCH_QUICK=1: 2,000 alerts, 1 s loads, no reference
 * floors) keeps this a smoke test of the plumbing, not a measurement.
 */
function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { env: { ...process.env, BENCH_QUICK: '1' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run bench -- --json', () => {
  it('ends with one JSON object holding every tracked figure, after the unchanged markdown', async () => {
    const { code, stdout, stderr } = await runBench(['read', 'webhook', 'memory', '--json']);
    expect(code, stderr).toBe(0);
    const lines = stdout.trimEnd().split('\n');
    const figures = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    for (const key of [
      'channelsBehindP99Ms',
      'pageFirstP99Ms',
      'pageDirectP99Ms',
      'channelsNeverReadP99Ms',
      'webhookCpuUsPerReq',
      'webhookDedupCpuUsPerReq',
      'webhookNewDedupKeyCpuUsPerReq',
      'bareCpuUsPerReq',
      'webhookReqPerSec',
      'webhookThreeRoutesReqPerSec',
      'webhookThreeRoutesCpuUsPerReq',
      'rssIdleMb',
      'rssAfterIngestMb',
      'rssSettledMb',
      'memoryIngestAlertsPerSec',
      'pageFirstP99MsAt2k',
      'pageFirstP99NoGcMs',
      // The webhook's CPU split by stage from a CPU profile: our store and SQLite are always in it.
      'webhookStageStoreUs',
      'webhookStageSqliteUs',
    ]) {
      expect(figures[key], key).toEqual(expect.any(Number));
      expect(figures[key] as number, key).toBeGreaterThan(0);
    }
    // A Node process serving HTTP cannot live in less than ~20 MB, nor should it need gigabytes.
    expect(figures.rssIdleMb).toBeGreaterThan(20);
    expect(figures.rssIdleMb).toBeLessThan(2000);
    expect(figures).not.toHaveProperty('failedSuites');
    // The human report is still there, before the JSON line.
    expect(stdout).toContain('### Memory of the service');
    expect(stdout).toContain('### Read API on 2,000 alerts');
    expect(stdout).toContain('### Webhook ingest');
    expect(stdout).toContain('| ours: store (batching, statements, rows) |');
  }, 120_000);
});
