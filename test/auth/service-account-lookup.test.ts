// Where token verification finds service accounts and bound objects: the informers, and storage for
// what they have not seen yet (a pod-bound token is often used the moment the pod exists).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { systemContext } from '../../src/api/request-context.ts';
import { informerLookup, type ServiceAccountObjectLookup } from '../../src/auth/serviceaccount/lookup.ts';
import { Closers } from '../../src/closers.ts';
import { openTestRegistry, type TestRegistry } from '../helpers/registry.ts';

let registry: TestRegistry;
let closers: Closers;
let lookup: ServiceAccountObjectLookup;

before(async () => {
  registry = await openTestRegistry();
  const logger = pino({ level: 'silent' });
  closers = new Closers(logger);
  lookup = await informerLookup({ surface: registry.surface, logger, closers });
});

after(async () => {
  await closers.closeAll();
  await registry?.close();
});

test('an object created a moment ago is found before its informer has seen it', async () => {
  const ctx = systemContext();
  const sa = await registry.store('serviceaccounts').create(ctx, 'default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'fresh' } });
  const pod = await registry.store('pods').create(ctx, 'default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'fresh' },
    spec: { serviceAccountName: 'fresh', containers: [{ name: 'c', image: 'busybox' }] },
  });
  const node = await registry.store('nodes').create(ctx, '', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'fresh' } });
  // Asked in the same turn as the creates returned: no watch event can have reached the informers.
  const [foundSa, foundPod, foundNode] = await Promise.all([
    lookup.get('serviceaccounts', 'default', 'fresh'),
    lookup.get('pods', 'default', 'fresh'),
    lookup.get('nodes', 'ignored-for-nodes', 'fresh'),
  ]);
  assert.equal(foundSa?.metadata.uid, sa.object.metadata.uid);
  assert.equal(foundPod?.metadata.uid, pod.object.metadata.uid);
  assert.equal(foundNode?.metadata.uid, node.object.metadata.uid);
});

test('an object that does not exist is not found', async () => {
  assert.equal(await lookup.get('secrets', 'default', 'missing'), undefined);
  assert.equal(await lookup.get('pods', 'no-such-namespace', 'missing'), undefined);
});
