import { trickle, type TrickleResult } from '../../test/helpers/trickle.ts';
import { summarize } from '../stats.ts';
import type { SoakFigure, SoakScenario } from './scenario.ts';

const CLIENTS = 20;
const DECLARED = 100_000;
const EVERY_MS = 2000;
/** The clients give up after this; a server that never cuts them shows as this figure. */
const GIVE_UP_MS = 150_000;

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

function figures(prefix: string, results: readonly TrickleResult[]): SoakFigure[] {
  const statuses = new Map<string, number>();
  for (const r of results) statuses.set(String(r.status ?? 'none'), (statuses.get(String(r.status ?? 'none')) ?? 0) + 1);
  const answered = summarize(results.filter((r) => r.answeredMs !== undefined).map((r) => r.answeredMs!));
  const open = summarize(results.map((r) => r.closedMs));
  return [
    { name: `${prefix} answers`, value: [...statuses].map(([s, n]) => `${n}× ${s}`).join(', ') },
    { name: `${prefix} answered after (median / max)`, value: `${seconds(answered.p50)} / ${seconds(answered.max)}`, unit: 's' },
    { name: `${prefix} connection open for (median / max)`, value: `${seconds(open.p50)} / ${seconds(open.max)}`, unit: 's' },
    { name: `${prefix} connections the server closed`, value: `${results.filter((r) => r.closedByServer).length} of ${results.length}` },
  ];
}

/** Issue item 6: POST bodies that declare 100,000 bytes and send one byte every 2 s, with and without credentials. */
export const tricklingBodies: SoakScenario = {
  name: 'trickling-bodies',
  description: `${CLIENTS} authenticated and ${CLIENTS} anonymous POSTs declaring Content-Length: ${DECLARED} and sending one byte every ${EVERY_MS / 1000} s: how long each connection stays open (default --request-timeout)`,
  async run({ server, log }) {
    // The admin agent's TLS settings are the client certificate the raw connections present.
    const { ca, cert, key } = server.agent().options as { ca: string; cert: string; key: string };
    const path = '/api/v1/namespaces/default/configmaps';
    const one = (credentials: { cert?: string; key?: string }) =>
      trickle(server.url, { ...credentials, ca, path, contentLength: DECLARED, firstBytes: '{', everyMs: EVERY_MS, maxMs: GIVE_UP_MS });
    log(`${CLIENTS * 2} clients trickling (they give up after ${GIVE_UP_MS / 1000} s)`);
    const [authenticated, anonymous] = await Promise.all([
      Promise.all(Array.from({ length: CLIENTS }, () => one({ cert, key }))),
      Promise.all(Array.from({ length: CLIENTS }, () => one({}))),
    ]);
    return [...figures('authenticated', authenticated), ...figures('anonymous', anonymous)];
  },
};
