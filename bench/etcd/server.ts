import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EtcdClient } from './client.ts';

/** A throwaway single-member etcd: its own data dir and free loopback ports; stop() removes both. */
export interface EtcdServer {
  readonly pid: number;
  readonly endpoint: string;
  readonly version: string;
  readonly dataDir: string;
  stop(): Promise<void>;
}

export const ETCD_INSTALL_HINT = 'etcd was not found on PATH (or ETCD_BIN). On Debian: apt-get update && apt-get install -y etcd-server';

/** The etcd binary (ETCD_BIN overrides), or undefined when there is none; the bench installs nothing. */
export function findEtcd(): { bin: string; version: string } | undefined {
  const bin = process.env.ETCD_BIN || 'etcd';
  const res = spawnSync(bin, ['--version'], { encoding: 'utf8' });
  if (res.error || res.status !== 0) return undefined;
  const version = /etcd Version:\s*(\S+)/.exec(res.stdout)?.[1] ?? 'unknown';
  return { bin, version };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts etcd with its defaults for durability (every raft commit fsynced to its WAL, like PostgreSQL's
 * synchronous_commit=on) and resolves once it answers a linearizable Range. Plain gRPC on loopback: no
 * TLS, which spares etcd the cost a production kube-apiserver→etcd mTLS link would add.
 */
export async function startEtcd(): Promise<EtcdServer> {
  const found = findEtcd();
  if (!found) throw new Error(ETCD_INSTALL_HINT);
  const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-bench-etcd-'));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child: ChildProcess = spawn(
    found.bin,
    [
      '--name=bench',
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=bench=${peer}`,
      '--initial-cluster-state=new',
      '--logger=zap',
      '--log-level=error',
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const cleanup = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
  };
  const endpoint = `127.0.0.1:${clientPort}`;
  const probe = new EtcdClient(endpoint);
  try {
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`etcd exited with ${child.exitCode}: ${stderr}`);
      try {
        await probe.get('/health-probe');
        break;
      } catch (err) {
        if (Date.now() > deadline) throw new Error(`etcd did not answer in time: ${(err as Error).message} ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } catch (err) {
    probe.close();
    await cleanup();
    throw err;
  }
  probe.close();
  return { pid: child.pid!, endpoint, version: found.version, dataDir, stop: cleanup };
}
