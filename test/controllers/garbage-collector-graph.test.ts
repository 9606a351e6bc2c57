/**
 * The collector's parts that do no I/O: the graph builder (virtual owners, namespaces, transitions,
 * unblocking), the deletion decisions, and the work queue.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decide } from '../../src/controllers/garbage-collector/decisions.ts';
import { GraphBuilder, referencesDiffs, type GraphEvent, type ObservedObject } from '../../src/controllers/garbage-collector/graph-builder.ts';
import { GraphNode, type OwnerReference } from '../../src/controllers/garbage-collector/graph.ts';
import { WorkQueue } from '../../src/controllers/garbage-collector/work-queue.ts';
import { collectableKinds, metadataOnly, observedObject } from '../../src/controllers/garbage-collector/monitors.ts';
import { builtinKinds } from '../../src/kinds/index.ts';

/** A queue that records what was added. */
function recorder() {
  const added: GraphNode[] = [];
  const rateLimited: GraphNode[] = [];
  return { added, rateLimited, add: (n: GraphNode) => added.push(n), addRateLimited: (n: GraphNode) => rateLimited.push(n), names: () => added.map((n) => n.identity.name) };
}

function setup() {
  const del = recorder();
  const orphan = recorder();
  const reports: { dependent: string; owner: string }[] = [];
  const graph = new GraphBuilder(del, orphan, (dependent, owner) => reports.push({ dependent: dependent.identity.name, owner: owner.name }));
  return { graph, del, orphan, reports };
}

function cm(name: string, namespace: string, extra: Partial<ObservedObject> = {}): ObservedObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', name, uid: `uid-${name}`, namespace, ownerReferences: [], finalizers: [], beingDeleted: false, ...extra };
}

function refTo(o: ObservedObject, extra: Partial<OwnerReference> = {}): OwnerReference {
  return { apiVersion: o.apiVersion, kind: o.kind, name: o.name, uid: o.uid, ...extra };
}

const add = (object: ObservedObject): GraphEvent => ({ type: 'add', object });
const update = (object: ObservedObject, old: ObservedObject): GraphEvent => ({ type: 'update', object, old });
const remove = (object: ObservedObject): GraphEvent => ({ type: 'delete', object });

describe('graph builder', () => {
  test('an owner not seen yet becomes a virtual node, queued for verification; seen, it is real', () => {
    const { graph, del } = setup();
    const owner = cm('owner', 'ns');
    graph.process(add(cm('dep', 'ns', { ownerReferences: [refTo(owner)] })));
    const virtual = graph.uidToNode.get(owner.uid)!;
    assert.equal(virtual.virtual, true);
    assert.deepEqual(virtual.identity, { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.uid, namespace: 'ns' });
    assert.deepEqual(del.names(), ['owner']);
    graph.process(add(owner));
    assert.equal(graph.uidToNode.get(owner.uid), virtual, 'same identity: the node is kept');
    assert.equal(virtual.virtual, false);
    assert.deepEqual([...virtual.dependents].map((d) => d.identity.name), ['dep']);
  });

  test('an owner deleted: it leaves the graph, is remembered absent, and its dependents are queued', () => {
    const { graph, del } = setup();
    const owner = cm('owner', 'ns');
    graph.process(add(owner));
    graph.process(add(cm('a', 'ns', { ownerReferences: [refTo(owner)] })));
    graph.process(add(cm('b', 'ns', { ownerReferences: [refTo(owner)] })));
    del.added.length = 0;
    graph.process(remove(owner));
    assert.equal(graph.uidToNode.has(owner.uid), false);
    assert.deepEqual(del.names().sort(), ['a', 'b']);
    assert.equal(graph.absentOwnerCache.has({ apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.uid, namespace: 'ns' }), true);
  });

  test('a dependent naming an owner seen in another namespace is reported and queued', () => {
    const { graph, del, reports } = setup();
    const owner = cm('owner', 'ns1');
    graph.process(add(owner));
    graph.process(add(cm('dep', 'ns2', { ownerReferences: [refTo(owner)] })));
    assert.deepEqual(reports, [{ dependent: 'dep', owner: 'owner' }]);
    assert.deepEqual(del.names(), ['dep']);
    // A cluster-scoped owner may be named from any namespace.
    const { graph: g2, del: d2, reports: r2 } = setup();
    const ns: ObservedObject = { ...cm('team', ''), apiVersion: 'v1', kind: 'Namespace' };
    g2.process(add(ns));
    g2.process(add(cm('dep', 'ns2', { ownerReferences: [refTo(ns)] })));
    assert.deepEqual(r2, []);
    assert.deepEqual(d2.names(), []);
  });

  test('a virtual owner observed in another namespace than its dependents gave it: reported, queued, replaced', () => {
    const { graph, del, reports } = setup();
    const owner = cm('owner', 'ns1');
    graph.process(add(cm('dep', 'ns2', { ownerReferences: [refTo(owner)] })));
    const virtual = graph.uidToNode.get(owner.uid)!;
    del.added.length = 0;
    graph.process(add(owner));
    const real = graph.uidToNode.get(owner.uid)!;
    assert.notEqual(real, virtual);
    assert.equal(real.identity.namespace, 'ns1');
    assert.equal(real.virtual, false);
    assert.deepEqual(reports, [{ dependent: 'dep', owner: 'owner' }]);
    assert.deepEqual(del.names(), ['dep']);
  });

  test('a virtual owner verified absent: dependents that name it otherwise keep it under an alternate identity', () => {
    const { graph, del } = setup();
    const uid = 'shared-uid';
    graph.process(add(cm('a', 'ns', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid }] })));
    graph.process(add(cm('b', 'ns', { ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'x', uid }] })));
    const first = graph.uidToNode.get(uid)!;
    assert.equal(first.identity.kind, 'ConfigMap');
    del.added.length = 0;
    graph.enqueueVirtualDeleteEvent(first.identity);
    const replaced = graph.uidToNode.get(uid)!;
    assert.equal(replaced.identity.kind, 'Secret', 'the other identity is tried next');
    assert.deepEqual(del.names(), ['a'], 'the dependent that named the absent identity is looked at');
    // That one absent too: its dependent is looked at; the node stays while dependents name it otherwise.
    del.added.length = 0;
    graph.enqueueVirtualDeleteEvent(replaced.identity);
    assert.deepEqual(del.names(), ['b']);
    // Once the dependents are gone, the next verification removes it.
    graph.process(remove(cm('a', 'ns', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid }] })));
    graph.process(remove(cm('b', 'ns', { ownerReferences: [{ apiVersion: 'v1', kind: 'Secret', name: 'x', uid }] })));
    graph.enqueueVirtualDeleteEvent(graph.uidToNode.get(uid)!.identity);
    assert.equal(graph.uidToNode.has(uid), false);
  });

  test('foreground: deletion with foregroundDeletion marks the node and queues it and every dependent', () => {
    const { graph, del } = setup();
    const owner = cm('owner', 'ns');
    graph.process(add(owner));
    graph.process(add(cm('dep', 'ns', { ownerReferences: [refTo(owner)] })));
    del.added.length = 0;
    const deleting = { ...owner, beingDeleted: true, finalizers: ['foregroundDeletion'] };
    graph.process(update(deleting, owner));
    const node = graph.uidToNode.get(owner.uid)!;
    assert.equal(node.deletingDependents, true);
    assert.equal(node.beingDeleted, true);
    assert.deepEqual(del.names(), ['dep', 'owner']);
    // Seen again unchanged (a relist), it is not a new transition.
    del.added.length = 0;
    graph.process(update(deleting, deleting));
    assert.deepEqual(del.names(), []);
  });

  test('orphan: deletion with the orphan finalizer queues the owner for orphaning (also when first seen so, after a restart)', () => {
    const { graph, orphan } = setup();
    const owner = cm('owner', 'ns');
    graph.process(add(owner));
    graph.process(update({ ...owner, beingDeleted: true, finalizers: ['orphan'] }, owner));
    assert.deepEqual(orphan.names(), ['owner']);
    const fresh = setup();
    fresh.graph.process(add({ ...cm('other', 'ns'), beingDeleted: true, finalizers: ['orphan'] }));
    assert.deepEqual(fresh.orphan.names(), ['other']);
  });

  test('a blocking reference removed or turned off queues its owner (which may be waiting for it)', () => {
    const { graph, del } = setup();
    const owner = cm('owner', 'ns');
    graph.process(add(owner));
    const dep = cm('dep', 'ns', { ownerReferences: [refTo(owner, { blockOwnerDeletion: true })] });
    graph.process(add(dep));
    assert.deepEqual(graph.uidToNode.get(owner.uid)!.blockingDependents().map((d) => d.identity.name), ['dep']);
    del.added.length = 0;
    const unblocked = { ...dep, ownerReferences: [refTo(owner, { blockOwnerDeletion: false })] };
    graph.process(update(unblocked, dep));
    assert.deepEqual(del.names(), ['owner']);
    assert.deepEqual(graph.uidToNode.get(owner.uid)!.blockingDependents(), []);
    del.added.length = 0;
    graph.process(update({ ...dep, ownerReferences: [] }, unblocked));
    assert.deepEqual(del.names(), [], 'a non-blocking reference going unblocks nothing');
    assert.equal(graph.uidToNode.get(owner.uid)!.dependents.size, 0);
  });

  test('a dependent deleted queues an owner deleting its dependents', () => {
    const { graph, del } = setup();
    const owner = { ...cm('owner', 'ns'), beingDeleted: true, finalizers: ['foregroundDeletion'] };
    graph.process(add(owner));
    const dep = cm('dep', 'ns', { ownerReferences: [refTo(owner, { blockOwnerDeletion: true })] });
    graph.process(add(dep));
    del.added.length = 0;
    graph.process(remove(dep));
    assert.deepEqual(del.names(), ['owner']);
  });

  test('referencesDiffs: added, removed and changed by uid', () => {
    const a = { apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: '1' };
    const b = { apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: '2' };
    const c = { apiVersion: 'v1', kind: 'ConfigMap', name: 'c', uid: '3' };
    const diff = referencesDiffs([a, b], [{ ...b, controller: true }, c]);
    assert.deepEqual(diff.added, [c]);
    assert.deepEqual(diff.removed, [a]);
    assert.deepEqual(diff.changed, [{ oldRef: b, newRef: { ...b, controller: true } }]);
  });
});

describe('monitored kinds', () => {
  test('every kind served with delete, list and watch, except events (as upstream ignores them)', () => {
    const names = collectableKinds(builtinKinds).map((k) => `${k.plural}.${k.group}`);
    for (const kept of ['configmaps.', 'secrets.', 'pods.', 'namespaces.', 'clusterroles.rbac.authorization.k8s.io', 'leases.coordination.k8s.io']) assert.ok(names.includes(kept), kept);
    for (const left of ['events.', 'events.events.k8s.io', 'componentstatuses.', 'subjectaccessreviews.authorization.k8s.io', 'tokenreviews.authentication.k8s.io']) assert.ok(!names.includes(left), left);
  });
});

describe('decisions', () => {
  const ref = (uid: string): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid });
  const none = { solid: [], dangling: [], waitingForDependentsDeletion: [] };
  const node = (deletingDependents = false) => Object.assign(new GraphNode({ apiVersion: 'v1', kind: 'ConfigMap', name: 'd', uid: 'd', namespace: 'ns' }), { deletingDependents });

  test('a live owner keeps the object; references to absent or waiting owners go', () => {
    assert.deepEqual(decide({ ...none, solid: [ref('a')] }, [], []), { action: 'keep' });
    assert.deepEqual(decide({ ...none, solid: [ref('a')], dangling: [ref('b')], waitingForDependentsDeletion: [ref('c')] }, [], []), { action: 'removeReferences', uids: ['b', 'c'] });
  });

  test('no live owner: deleted in the background, or as a collector finalizer on it asks', () => {
    assert.deepEqual(decide({ ...none, dangling: [ref('a')] }, [], []), { action: 'delete', policy: 'Background', unblockFirst: false });
    assert.deepEqual(decide({ ...none, dangling: [ref('a')] }, ['orphan'], []), { action: 'delete', policy: 'Orphan', unblockFirst: false });
    assert.deepEqual(decide({ ...none, dangling: [ref('a')] }, ['foregroundDeletion'], []), { action: 'delete', policy: 'Foreground', unblockFirst: false });
  });

  test('an owner waiting in the foreground: a dependent with dependents is deleted in the foreground (unblocking first on a possible cycle)', () => {
    assert.deepEqual(decide({ ...none, waitingForDependentsDeletion: [ref('a')] }, [], []), { action: 'delete', policy: 'Background', unblockFirst: false });
    assert.deepEqual(decide({ ...none, waitingForDependentsDeletion: [ref('a')] }, [], [node()]), { action: 'delete', policy: 'Foreground', unblockFirst: false });
    assert.deepEqual(decide({ ...none, waitingForDependentsDeletion: [ref('a')] }, [], [node(true)]), { action: 'delete', policy: 'Foreground', unblockFirst: true });
  });
});

describe('work queue', () => {
  test('an item is queued once, never worked on twice at once, worked on again if added meanwhile, and retried after a failure', async () => {
    const seen: string[] = [];
    let running = 0;
    let maxRunning = 0;
    let fail = true;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => (release = r));
    const queue = new WorkQueue<string>(
      async (item) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        seen.push(item);
        if (seen.length === 1) await gate;
        running--;
        if (item === 'b' && fail) {
          fail = false;
          return 'requeue';
        }
        return 'forget';
      },
      () => undefined,
      { concurrency: 4, baseDelayMs: 1 },
    );
    queue.add('a');
    queue.add('a');
    queue.run();
    queue.add('a'); // while 'a' is being worked on
    queue.add('b');
    await new Promise((r) => setTimeout(r, 10));
    release();
    await new Promise((r) => setTimeout(r, 30));
    await queue.idle();
    assert.deepEqual(seen.filter((s) => s === 'a').length, 2);
    assert.deepEqual(seen.filter((s) => s === 'b').length, 2, 'retried once after its failure');
    assert.equal(maxRunning, 2, 'a and b at once, never a twice');
    queue.shutDown();
    queue.add('c');
    assert.equal(queue.length, 0);
  });
});

// The collector keeps something of every object of the cluster: what it keeps per object is what a
// cluster of a million objects pays a million times.
describe('what the collector keeps per object', () => {
  const configMaps = builtinKinds.find((k) => k.group === '' && k.plural === 'configmaps')!;
  const stored = (name: string, metadata: Record<string, unknown> = {}) =>
    ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: '7', labels: { a: 'b' }, ...metadata }, data: { k: 'v' } }) as never;

  test('a node holds a set of dependents only while it has some', () => {
    const a = new GraphNode({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', uid: 'ua', namespace: 'ns' });
    const b = new GraphNode({ apiVersion: 'v1', kind: 'ConfigMap', name: 'b', uid: 'ub', namespace: 'ns' });
    assert.equal(a.dependents, b.dependents, 'nodes without dependents share one empty set');
    assert.equal(a.owners, b.owners, 'and one empty owners array');
    a.addDependent(b);
    assert.notEqual(a.dependents, b.dependents);
    assert.deepEqual([...a.dependents], [b]);
    assert.equal(a.removeDependent(a), false, 'not a dependent');
    assert.equal(a.removeDependent(b), true);
    assert.equal(a.dependents, b.dependents, 'the set goes with the last dependent');
    assert.equal(a.removeDependent(b), false);
  });

  test('an object with no owners, finalizers or deletion keeps four metadata fields, and shares its empty lists', () => {
    const kept = metadataOnly(stored('plain'));
    assert.deepEqual(Object.keys(kept), ['metadata']);
    assert.deepEqual(kept.metadata, { name: 'plain', uid: 'uid-plain', resourceVersion: '7', namespace: 'ns' });
    const one = observedObject(configMaps, kept);
    const other = observedObject(configMaps, metadataOnly(stored('other')));
    assert.equal(one.ownerReferences, other.ownerReferences);
    assert.equal(one.finalizers, other.finalizers);
    assert.deepEqual([one.ownerReferences, one.finalizers], [[], []]);
  });

  test('owners, finalizers and the deletion are kept as copies', () => {
    const owner = { apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'uid-o', blockOwnerDeletion: true };
    const finalizers = ['foregroundDeletion'];
    const source = stored('full', { ownerReferences: [owner], finalizers, deletionTimestamp: '2026-11-28T00:00:00Z' }) as { metadata: Record<string, unknown> };
    const kept = metadataOnly(source as never);
    assert.deepEqual(JSON.parse(JSON.stringify(kept.metadata)), {
      name: 'full', uid: 'uid-full', resourceVersion: '7', namespace: 'ns', deletionTimestamp: '2026-11-28T00:00:00Z', finalizers, ownerReferences: [owner],
    });
    assert.notEqual(kept.metadata.ownerReferences![0], owner);
    assert.notEqual(kept.metadata.finalizers, finalizers);
    const seen = observedObject(configMaps, kept);
    assert.deepEqual([seen.ownerReferences, seen.finalizers, seen.beingDeleted], [[owner], finalizers, true]);
  });

  test('a cluster-scoped object keeps no namespace', () => {
    const kept = metadataOnly({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'n', uid: 'u', resourceVersion: '1' } } as never);
    assert.equal(kept.metadata.namespace, undefined);
  });
});
