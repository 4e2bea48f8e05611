/** Whether the database answers and can take writes, for /readyz (src/ops/readiness.ts). */
export type ProbeResult = { ok: true } | { ok: false; reason: string };

export interface DatabaseProbe {
  probe(): Promise<ProbeResult>;
}
