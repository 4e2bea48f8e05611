import fs from 'node:fs';
import pg from 'pg';

/**
 * The PostgreSQL server's own CPU time (user + system, from /proc/<pid>/stat), for the bench's
 * "server CPU per stored alert": the backends connected to one database (the service's pool and
 * dedicated connections), read before and after a measured window. Only a server on this machine
 * can be read; elsewhere the figure is left out. The background writer, WAL writer and checkpointer
 * serve every database on the server (other jobs' too on a shared machine), so they are reported apart.
 */
const TICK_US = 1e6 / 100; // CLK_TCK is 100 on Linux

function cpuUs(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_US; // utime, stime (fields 14 and 15)
  } catch {
    return undefined;
  }
}

export interface PgCpuSample {
  backends: Map<number, number>;
  auxiliary: number;
}

export async function samplePgServerCpu(databaseUrl: string): Promise<PgCpuSample | undefined> {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{ pid: number; own: boolean }>(
      `SELECT pid, datname = current_database() AS own FROM pg_stat_activity
        WHERE pid <> pg_backend_pid() AND (datname = current_database() OR backend_type IN ('background writer', 'walwriter', 'checkpointer'))`,
    );
    const backends = new Map<number, number>();
    let auxiliary = 0;
    for (const r of rows) {
      const us = cpuUs(r.pid);
      if (us === undefined) return undefined; // not on this machine (or not readable)
      if (r.own) backends.set(r.pid, us);
      else auxiliary += us;
    }
    return { backends, auxiliary };
  } finally {
    await c.end();
  }
}

/** CPU µs spent between two samples: by this database's backends (a backend new since `before` counts whole), and by the shared writers. */
export function pgCpuSpent(before: PgCpuSample, after: PgCpuSample): { backendsUs: number; auxiliaryUs: number } {
  let backendsUs = 0;
  for (const [pid, us] of after.backends) backendsUs += us - (before.backends.get(pid) ?? 0);
  return { backendsUs, auxiliaryUs: after.auxiliary - before.auxiliary };
}
