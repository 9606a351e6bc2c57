import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { expect } from '../http.ts';
import { rssMiB, rssPeak, sleep, type SoakScenario } from './scenario.ts';

const WATCHERS = 20;
const EVENTS = 48;
const EVENT_BYTES = 1024 * 1024;

interface Stalled {
  response: IncomingMessage;
  closed: boolean;
}

/** Opens a watch that reads its response head, then nothing. */
function stalledWatch(url: URL, agent: https.Agent): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const req = https.request(url, { agent, headers: { Accept: 'application/json' } }, (response) => {
      response.pause();
      const s: Stalled = { response, closed: false };
      req.socket?.on('close', () => (s.closed = true));
      response.on('error', () => undefined);
      resolve(s);
    });
    req.on('error', () => undefined);
    req.once('error', reject);
    req.end();
  });
}

/** Issue item 3: watchers that stop reading while large events are written. */
export const stalledWatchers: SoakScenario = {
  name: 'stalled-watchers',
  description: `${WATCHERS} watchers that stop reading while ${EVENTS} events of ${EVENT_BYTES / 1024 / 1024} MiB are written: server RSS, watches given up`,
  async run({ server, log }) {
    const admin = server.agent({ maxSockets: 8 });
    const url = (path: string) => new URL(path, server.url);
    const ns = 'soak-stalled-watchers';
    await expect(201, url('/api/v1/namespaces'), admin, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }));
    await sleep(1000);
    const before = rssMiB(server.pid);

    log(`opening ${WATCHERS} watches that will not read`);
    const stalledAgent = server.agent({ keepAlive: false, maxSockets: Infinity });
    const watches = await Promise.all(
      Array.from({ length: WATCHERS }, () => stalledWatch(url(`/api/v1/namespaces/${ns}/configmaps?watch=true`), stalledAgent)),
    );
    const opened = rssMiB(server.pid);

    log(`writing ${EVENTS} ConfigMaps of ${EVENT_BYTES} bytes`);
    const sampler = rssPeak(server.pid);
    const payload = 'x'.repeat(EVENT_BYTES);
    for (let i = 0; i < EVENTS; i += 4) {
      await Promise.all(
        [0, 1, 2, 3].map((j) =>
          expect(201, url(`/api/v1/namespaces/${ns}/configmaps`), admin, 'POST', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i + j}` }, data: { k: payload } })),
        ),
      );
    }
    await sleep(3000);
    const peak = sampler.stop();
    const afterWrites = rssMiB(server.pid);

    // The clients read again: a watch that was given up shows as a cut-off response.
    log('the stalled clients read again');
    for (const w of watches) {
      w.response.on('data', () => undefined);
      w.response.resume();
    }
    for (let i = 0; i < 100 && watches.some((w) => !w.closed); i++) await sleep(100);
    const givenUp = watches.filter((w) => w.closed && !w.response.complete).length;
    for (const w of watches) w.response.destroy();
    await sleep(3000);
    const afterLeaving = rssMiB(server.pid);

    return [
      { name: 'watchers that stopped reading', value: WATCHERS },
      { name: 'events written', value: `${EVENTS} x ${EVENT_BYTES / 1024 / 1024} MiB` },
      { name: 'server RSS before', value: before, unit: 'MiB' },
      { name: 'server RSS with the watches open', value: opened, unit: 'MiB' },
      { name: 'server RSS peak while writing', value: peak, unit: 'MiB' },
      { name: 'server RSS after the writes (clients still stalled)', value: afterWrites, unit: 'MiB' },
      { name: 'server RSS growth per stalled watcher', value: Math.round(((afterWrites - opened) / WATCHERS) * 10) / 10, unit: 'MiB' },
      { name: 'watches given up (connection cut)', value: `${givenUp} of ${WATCHERS}` },
      { name: 'server RSS after the clients left', value: afterLeaving, unit: 'MiB' },
    ];
  },
};
