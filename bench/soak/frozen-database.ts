import { mkdtemp, readFile, rm } from 'node:fs/promises';
import https from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freezePostgres } from '../../test/helpers/freeze-postgres.ts';
import { startPrivatePostgres } from '../../test/helpers/private-postgres.ts';
import { startServerProcess } from '../../test/helpers/server-process.ts';
import { expect, send } from '../http.ts';
import { summarize } from '../stats.ts';
import { sleep, type SoakFigure, type SoakScenario } from './scenario.ts';

const FROZEN_MS = 70_000;
/** A wave of probes (GET, LIST, POST, /readyz) goes out this often while PostgreSQL is frozen. */
const WAVE_EVERY_MS = 10_000;
const CMS = '/api/v1/namespaces/default/configmaps';

type Kind = 'GET' | 'LIST' | 'POST' | 'readyz';

interface Probe {
  readonly kind: Kind;
  readonly status: number;
  readonly ms: number;
  /** The object a POST created (or tried to). */
  readonly name?: string;
}

async function probe(kind: Kind, base: string, admin: https.Agent, anonymous: https.Agent, name: string): Promise<Probe> {
  const started = performance.now();
  let status: number;
  try {
    const reply =
      kind === 'GET'
        ? await send(new URL(`${CMS}/before`, base), admin)
        : kind === 'LIST'
          ? await send(new URL(CMS, base), admin)
          : kind === 'POST'
            ? await send(new URL(CMS, base), admin, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } }))
            : await send(new URL('/readyz', base), anonymous);
    status = reply.status;
  } catch {
    status = 0; // the connection failed
  }
  return { kind, status, ms: performance.now() - started, name: kind === 'POST' ? name : undefined };
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

/**
 * Issue item 5: PostgreSQL frozen (every process SIGSTOPped, as a hung server or a network blackhole
 * looks) for 70 s, with the server at its default timeouts. It needs a PostgreSQL it may freeze, so
 * it runs its own (a private cluster and a server process on it) instead of the runner's server.
 */
export const frozenDatabase: SoakScenario = {
  name: 'frozen-database',
  description: `PostgreSQL frozen (SIGSTOP) for ${FROZEN_MS / 1000} s, default timeouts: how long GET, LIST, POST and /readyz take to answer, and recovery`,
  async run({ log }) {
    const pg = await startPrivatePostgres({ hba: 'host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n' });
    const dataDir = await mkdtemp(path.join(tmpdir(), 'pgkube-soak-frozen-'));
    let server: Awaited<ReturnType<typeof startServerProcess>> | undefined;
    const agents: https.Agent[] = [];
    try {
      server = await startServerProcess(pg.url(), dataDir, [], { compiled: true });
      const pki = path.join(dataDir, 'pki');
      const [ca, cert, key] = await Promise.all(['ca.crt', 'admin.crt', 'admin.key'].map((f) => readFile(path.join(pki, f), 'utf8')));
      const admin = new https.Agent({ ca, cert, key, keepAlive: true });
      const anonymous = new https.Agent({ ca, keepAlive: true });
      agents.push(admin, anonymous);
      const base = server.url;
      await expect(201, new URL(CMS, base), admin, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' } }));

      log(`freezing PostgreSQL for ${FROZEN_MS / 1000} s; a wave of probes every ${WAVE_EVERY_MS / 1000} s`);
      const frozen = freezePostgres(pg.pid);
      const frozenAt = performance.now();
      const pending: Promise<Probe>[] = [];
      let wave = 0;
      try {
        while (performance.now() - frozenAt < FROZEN_MS - 1000) {
          for (const kind of ['GET', 'LIST', 'POST', 'readyz'] as const) pending.push(probe(kind, base, admin, anonymous, `during-${wave}`));
          wave++;
          await sleep(Math.min(WAVE_EVERY_MS, FROZEN_MS - (performance.now() - frozenAt)));
        }
        await sleep(Math.max(0, FROZEN_MS - (performance.now() - frozenAt)));
      } finally {
        frozen.thaw();
      }
      const thawedAt = performance.now();
      log('thawed; waiting for /readyz and a write to succeed');
      let readyAfter = Number.NaN;
      let writeAfter = Number.NaN;
      for (let i = 0; i < 600 && (Number.isNaN(readyAfter) || Number.isNaN(writeAfter)); i++) {
        if (Number.isNaN(readyAfter) && (await send(new URL('/readyz', base), anonymous)).status === 200) readyAfter = performance.now() - thawedAt;
        if (Number.isNaN(writeAfter)) {
          const w = await send(new URL(CMS, base), admin, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `after-${i}` } }));
          if (w.status === 201) writeAfter = performance.now() - thawedAt;
        }
        await sleep(100);
      }
      const probes = await Promise.all(pending);

      // Every acknowledged write is there, no refused (503) one is, and a 504 one may be: each exactly once.
      const listed = JSON.parse((await expect(200, new URL(CMS, base), admin)).text) as { items: Array<{ metadata: { name: string } }> };
      const names = new Set(listed.items.map((i) => i.metadata.name));
      const posts = probes.filter((p) => p.kind === 'POST');
      const lost = posts.filter((p) => p.status === 201 && !names.has(p.name!)).length;
      const appliedAfter503 = posts.filter((p) => p.status === 503 && names.has(p.name!)).length;
      const appliedAfter504 = posts.filter((p) => p.status === 504 && names.has(p.name!)).length;

      const out: SoakFigure[] = [];
      for (const kind of ['GET', 'LIST', 'POST', 'readyz'] as const) {
        const mine = probes.filter((p) => p.kind === kind);
        const statuses = new Map<number, number>();
        for (const p of mine) statuses.set(p.status, (statuses.get(p.status) ?? 0) + 1);
        const s = summarize(mine.map((p) => p.ms));
        out.push({ name: `${kind} answers`, value: [...statuses].map(([st, n]) => `${n}× ${st}`).join(', ') });
        out.push({ name: `${kind} answered after (median / max)`, value: `${seconds(s.p50)} / ${seconds(s.max)}`, unit: 's' });
      }
      out.push({ name: 'ready again after the thaw', value: seconds(readyAfter), unit: 's' });
      out.push({ name: 'first write after the thaw', value: seconds(writeAfter), unit: 's' });
      out.push({ name: 'acknowledged writes lost', value: lost });
      out.push({ name: 'writes answered 503 but applied', value: appliedAfter503 });
      out.push({ name: 'writes answered 504, applied once PostgreSQL answered', value: `${appliedAfter504} of ${posts.filter((p) => p.status === 504).length}` });
      return out;
    } finally {
      for (const a of agents) a.destroy();
      await server?.stop();
      await pg.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};
