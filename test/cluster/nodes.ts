import fs from 'node:fs';
import { tempDir } from '../helpers/harness.js';
import { spawnService, type SpawnedService } from '../helpers/spawned-service.js';

/**
 * Nodes of a cluster as an operator runs them: `node dist/main.js` processes on one PostgreSQL
 * database, each on its own loopback port and DATA_DIR, all sharing one MEDIA_DIR (the NFS mount
 * of docs/cluster.md).
 */
export interface ClusterNode {
  readonly name: string;
  readonly svc: SpawnedService;
  readonly base: string;
  readonly pid: number;
  readonly dataDir: string;
  /** Whether the process is gone (killed or stopped). */
  gone: boolean;
}

export async function startNode(name: string, env: Record<string, string>): Promise<ClusterNode> {
  const dataDir = tempDir(`alertbridge-node-${name}-`);
  const svc = await spawnService({ BOOTSTRAP: '0', LOG_LEVEL: 'info', ...env }, { dataDir, timeoutMs: 30_000 });
  const node: ClusterNode = { name, svc, base: svc.base, pid: svc.child.pid!, dataDir, gone: false };
  void svc.exited.then(() => (node.gone = true));
  return node;
}

/** SIGTERM, as a service manager stops a node; resolves with its exit code. */
export async function stopNode(node: ClusterNode): Promise<number | string> {
  if (!node.gone) node.svc.child.kill('SIGTERM');
  const code = await node.svc.exited;
  fs.rmSync(node.dataDir, { recursive: true, force: true });
  return code;
}

/** kill -9: no shutdown code runs, sockets are closed by the kernel. */
export async function killNode(node: ClusterNode): Promise<void> {
  node.svc.child.kill('SIGKILL');
  expectSignal(await node.svc.exited);
}

function expectSignal(code: number | string): void {
  if (code !== 'SIGKILL') throw new Error(`expected the node to die of SIGKILL, it exited with ${code}`);
}

/** The JSON log lines of a node whose `msg` is `msg`. */
export function logged(node: ClusterNode, msg: string): number {
  return node.svc
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{') && (JSON.parse(l) as { msg?: string }).msg === msg).length;
}

/**
 * Which of `nodes` owns the loopback TCP connection whose local port is `port` (for example the
 * client side of an SMTP conversation the sink sees coming from `port`): the socket's inode from
 * /proc/net/tcp{,6}, then the process whose file descriptors include it. Linux only.
 */
export function ownerOfPort(port: number, nodes: readonly ClusterNode[]): ClusterNode | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue;
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      if (!local) continue;
      if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port && cols[9] && cols[9] !== '0') inodes.add(cols[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  return nodes.find((node) => {
    if (node.gone) return false;
    const dir = `/proc/${node.pid}/fd`;
    let fds: string[];
    try {
      fds = fs.readdirSync(dir);
    } catch {
      return false;
    }
    return fds.some((fd) => {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`${dir}/${fd}`));
        return m !== null && inodes.has(m[1]!);
      } catch {
        return false;
      }
    });
  });
}
