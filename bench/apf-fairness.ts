/**
 * The scenario API priority and fairness exists for: one client floods the server with 200 lists at
 * once (a controller stuck relisting, a script with 200 parallel lists) while other clients' gets
 * and a leader's Lease renewals go on. Reports what they see: an ordinary user (another priority
 * level), a service account of the flooder's own level (another flow: fair queuing), the leader.
 *
 * Clients behave as client-go does: a 429 is retried after its Retry-After.
 */
import type https from 'node:https';
import { APF_NAMESPACE, HUMAN, LEASE_NAME, type ApfTarget } from './apf-setup.ts';
import { send } from './http.ts';
import { seqName } from './objects.ts';
import { rounded, summarize, type Summary } from './stats.ts';

export interface FairnessResult {
  /** Gets of a service account in the flooder's own level (workload-low), another flow. */
  readonly readerGets: Summary;
  /** Gets of an ordinary user (global-default). */
  readonly humanGets: Summary;
  readonly leaseRenewals: Summary;
  /** Lists the flood completed (200) and those refused (429) during the window. */
  readonly floodLists: number;
  readonly floodRejected: number;
  /** Gets and renewals that did not succeed (429 or errors). */
  readonly readerFailures: number;
  readonly humanFailures: number;
  readonly renewalFailures: number;
}

export interface FairnessOptions {
  readonly seconds: number;
  readonly flooders: number;
  readonly readers: number;
  /** Objects in the namespace: each flood list reads all of them. */
  readonly objects: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function measureFairness(t: ApfTarget, options: FairnessOptions): Promise<FairnessResult> {
  const floodAgent: https.Agent = t.server.anonymousAgent();
  const readerAgent: https.Agent = t.server.anonymousAgent();
  const leaseAgent: https.Agent = t.server.anonymousAgent();
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  let stop = false;
  let measuring = false;
  let floodLists = 0;
  let floodRejected = 0;

  const listUrl = t.url(`/api/v1/namespaces/${APF_NAMESPACE}/configmaps`);
  const flooder = async () => {
    while (!stop) {
      const res = await send(listUrl, floodAgent, 'GET', undefined, bearer(t.tokens.flooder)).catch(() => undefined);
      if (measuring && res?.status === 200) floodLists++;
      if (res?.status === 429) {
        if (measuring) floodRejected++;
        await sleep(1000);
      }
    }
  };

  /** A client doing gets one after another; latencies and failures counted inside the window. */
  const getter = (agent: https.Agent, headers: Record<string, string>, latencies: number[], failures: { n: number }) => async (offset: number) => {
    for (let i = offset; !stop; i += options.readers) {
      const url = t.url(`/api/v1/namespaces/${APF_NAMESPACE}/configmaps/${seqName('cm', (i * 7919) % options.objects)}`);
      const t0 = performance.now();
      const res = await send(url, agent, 'GET', undefined, headers).catch(() => undefined);
      if (!measuring) continue;
      if (res?.status === 200) latencies.push(performance.now() - t0);
      else failures.n++;
    }
  };
  const readerLatencies: number[] = [];
  const readerFailures = { n: 0 };
  const reader = getter(readerAgent, bearer(t.tokens.reader), readerLatencies, readerFailures);
  const humanLatencies: number[] = [];
  const humanFailures = { n: 0 };
  const human = getter(t.admin, HUMAN, humanLatencies, humanFailures);

  const renewals: number[] = [];
  let renewalFailures = 0;
  const leaseUrl = t.url(`/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/${LEASE_NAME}`);
  const elector = async () => {
    while (!stop) {
      const t0 = performance.now();
      // A renewal as client-go's leader election does it: read the Lease, write it back renewed.
      const current = await send(leaseUrl, leaseAgent, 'GET', undefined, bearer(t.tokens.elector)).catch(() => undefined);
      let ok = false;
      if (current?.status === 200) {
        const lease = JSON.parse(current.text) as { spec: Record<string, unknown> };
        lease.spec.renewTime = new Date().toISOString().replace('Z', '000Z');
        const put = await send(leaseUrl, leaseAgent, 'PUT', JSON.stringify(lease), bearer(t.tokens.elector)).catch(() => undefined);
        ok = put?.status === 200;
      }
      if (measuring) {
        if (ok) renewals.push(performance.now() - t0);
        else renewalFailures++;
      }
      await sleep(100);
    }
  };

  const workers = [
    ...Array.from({ length: options.flooders }, flooder),
    ...Array.from({ length: options.readers }, (_, i) => reader(i)),
    ...Array.from({ length: options.readers }, (_, i) => human(i)),
    elector(),
  ];
  // The flood reaches its steady state before the window opens (with APF, a burst of 200 lists first
  // runs ahead of newcomers: its queues are charged their lists' real duration only as they finish).
  await sleep(2000);
  measuring = true;
  await sleep(options.seconds * 1000);
  measuring = false;
  stop = true;
  await Promise.all(workers);
  for (const a of [floodAgent, readerAgent, leaseAgent]) a.destroy();
  return {
    readerGets: rounded(summarize(readerLatencies)),
    humanGets: rounded(summarize(humanLatencies)),
    leaseRenewals: rounded(summarize(renewals)),
    floodLists,
    floodRejected,
    readerFailures: readerFailures.n,
    humanFailures: humanFailures.n,
    renewalFailures,
  };
}
