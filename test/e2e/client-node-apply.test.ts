/**
 * Server-side apply from the official JavaScript client (`@kubernetes/client-node` 1.4.0) the way a
 * controller does it: PATCH with `application/apply-patch+yaml` (PatchStrategy.ServerSideApply), a
 * fieldManager, force false or true. Apply creates a missing object (201), re-applies the whole
 * intent (changed values change, dropped fields are pruned, other managers' fields stay), conflicts
 * are 409 with FieldManagerConflict causes, force takes the fields, a status writer applies to the
 * status subresource, and a Lease is held, renewed and taken over through the generic
 * KubernetesObjectApi. Expected answers follow Kubernetes 1.34 (managedfields/internal conflict.go,
 * structured-merge-diff's merge.Updater).
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import {
  ApiException,
  CoordinationV1Api,
  CoreV1Api,
  KubeConfig,
  KubernetesObjectApi,
  PatchStrategy,
  setHeaderOptions,
  V1MicroTime,
  type KubernetesObject,
  type V1Lease,
} from '@kubernetes/client-node';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const NS = 'client-node-apply';
/** The request options that make a generated patch method send a server-side apply. */
const SSA = setHeaderOptions('Content-Type', PatchStrategy.ServerSideApply);

let srv: TestServer;
let core: CoreV1Api;
let coordination: CoordinationV1Api;
let objects: KubernetesObjectApi;

before(async () => {
  srv = await startTestServer();
  const kc = new KubeConfig();
  kc.loadFromFile(srv.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
  coordination = kc.makeApiClient(CoordinationV1Api);
  objects = KubernetesObjectApi.makeApiClient(kc);
  await core.createNamespace({ body: { metadata: { name: NS } } });
});
after(async () => {
  await srv?.stop();
});

/** The error a rejected call threw, asserting it is an ApiException. */
async function apiError(call: Promise<unknown>): Promise<ApiException<unknown>> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof ApiException, `expected an ApiException, got ${err}`);
    return err;
  }
  assert.fail('the call succeeded');
}

/** The response body of an ApiException as an object (the library hands it over as text). */
function statusOf(err: ApiException<unknown>): any {
  return typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
}

/** A controller's whole intent for a ConfigMap. */
function desired(name: string, data: Record<string, string>, labels?: Record<string, string>) {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...(labels ? { labels } : {}) }, data };
}

/** Server-side applies a ConfigMap as `fieldManager`; the HTTP status and the object returned. */
function applyConfigMap(fieldManager: string, body: ReturnType<typeof desired>, force = false, dryRun?: string) {
  return core.patchNamespacedConfigMapWithHttpInfo({ name: body.metadata.name, namespace: NS, body, fieldManager, force, dryRun }, SSA);
}

/** managedFields as [manager, operation, fieldsV1] (and the subresource when there is one). */
function owners(obj: KubernetesObject | undefined): unknown[][] {
  return (obj?.metadata?.managedFields ?? []).map((e) => [e.manager, e.operation, e.fieldsV1, ...(e.subresource ? [e.subresource] : [])]);
}

describe('@kubernetes/client-node server-side apply', () => {
  it('an apply of a missing ConfigMap creates it (201) and records the manager as its Apply owner', async () => {
    const res = await applyConfigMap('controller-a', desired('settings', { a: '1', b: '2' }, { app: 'demo' }));
    assert.equal(res.httpStatusCode, 201);
    const cm = res.data;
    assert.deepEqual(cm.data, { a: '1', b: '2' });
    assert.match(cm.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
    assert.deepEqual(owners(cm), [['controller-a', 'Apply', { 'f:data': { 'f:a': {}, 'f:b': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } }]]);
    const [entry] = cm.metadata?.managedFields ?? [];
    assert.equal(entry?.apiVersion, 'v1');
    assert.equal(entry?.fieldsType, 'FieldsV1');
    // The client deserialises the entry's time into a Date; on the wire it is RFC 3339 in whole seconds.
    assert.ok(entry?.time instanceof Date && !Number.isNaN(entry.time.getTime()));
    assert.equal(entry.time.getUTCMilliseconds(), 0);

    // The same intent again: 200, and nothing is written.
    const again = await applyConfigMap('controller-a', desired('settings', { a: '1', b: '2' }, { app: 'demo' }));
    assert.equal(again.httpStatusCode, 200);
    assert.equal(again.data.metadata?.resourceVersion, cm.metadata?.resourceVersion);
  });

  it('a re-applied intent changes values and prunes what it dropped, keeping other writers\u2019 fields', async () => {
    // Someone else adds a key with a merge patch; without a fieldManager the server names the
    // writer after the User-Agent's product (node-fetch/1.0 … → node-fetch).
    await core.patchNamespacedConfigMap({ name: 'settings', namespace: NS, body: { data: { extra: 'x' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));

    const res = await applyConfigMap('controller-a', desired('settings', { a: '2' }, { app: 'demo' }));
    assert.equal(res.httpStatusCode, 200);
    assert.deepEqual(res.data.data, { a: '2', extra: 'x' });
    assert.deepEqual(owners(res.data), [
      ['controller-a', 'Apply', { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } }],
      ['node-fetch', 'Update', { 'f:data': { 'f:extra': {} } }],
    ]);

    // The typed read sees the same managedFields.
    const read = await core.readNamespacedConfigMap({ name: 'settings', namespace: NS });
    assert.deepEqual(owners(read), owners(res.data));
  });

  it('a conflicting apply is a 409 Conflict with FieldManagerConflict causes; force takes the fields', async () => {
    const err = await apiError(applyConfigMap('controller-b', desired('settings', { a: 'b-value', extra: 'y' })));
    assert.equal(err.code, 409);
    const status = statusOf(err);
    assert.equal(status.kind, 'Status');
    assert.equal(status.status, 'Failure');
    assert.equal(status.reason, 'Conflict');
    assert.equal(status.code, 409);
    // Grouped by manager (sorted), an Update manager printed with its API version.
    assert.equal(status.message, 'Apply failed with 2 conflicts: conflicts with "controller-a":\n- .data.a\nconflicts with "node-fetch" using v1:\n- .data.extra');
    // Upstream builds the causes from a map: their order is not fixed.
    const causes = [...status.details.causes].sort((x: { field: string }, y: { field: string }) => x.field.localeCompare(y.field));
    assert.deepEqual(causes, [
      { reason: 'FieldManagerConflict', message: 'conflict with "controller-a"', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "node-fetch" using v1', field: '.data.extra' },
    ]);
    assert.deepEqual((await core.readNamespacedConfigMap({ name: 'settings', namespace: NS })).data, { a: '2', extra: 'x' });

    // A single conflict.
    const one = statusOf(await apiError(applyConfigMap('controller-b', desired('settings', { a: 'b-value' }))));
    assert.equal(one.message, 'Apply failed with 1 conflict: conflict with "controller-a": .data.a');
    assert.deepEqual(one.details.causes, [{ reason: 'FieldManagerConflict', message: 'conflict with "controller-a"', field: '.data.a' }]);

    // force: controller-b wins and now owns the fields; the losers' emptied entries go away.
    const forced = await applyConfigMap('controller-b', desired('settings', { a: 'b-value', extra: 'y' }), true);
    assert.equal(forced.httpStatusCode, 200);
    assert.deepEqual(forced.data.data, { a: 'b-value', extra: 'y' });
    assert.deepEqual(owners(forced.data), [
      ['controller-a', 'Apply', { 'f:metadata': { 'f:labels': { 'f:app': {} } } }],
      ['controller-b', 'Apply', { 'f:data': { 'f:a': {}, 'f:extra': {} } }],
    ]);

    // Now controller-a is the one in conflict; applying the value controller-b set shares the field instead.
    const back = statusOf(await apiError(applyConfigMap('controller-a', desired('settings', { a: '2' }, { app: 'demo' }))));
    assert.equal(back.message, 'Apply failed with 1 conflict: conflict with "controller-b": .data.a');
    const shared = await applyConfigMap('controller-a', desired('settings', { a: 'b-value' }, { app: 'demo' }));
    assert.equal(shared.httpStatusCode, 200);
    assert.deepEqual(owners(shared.data), [
      ['controller-a', 'Apply', { 'f:data': { 'f:a': {} }, 'f:metadata': { 'f:labels': { 'f:app': {} } } }],
      ['controller-b', 'Apply', { 'f:data': { 'f:a': {}, 'f:extra': {} } }],
    ]);
    // A shared field stays while any owner still applies it.
    const dropped = await applyConfigMap('controller-b', desired('settings', { extra: 'y' }));
    assert.deepEqual(dropped.data.data, { a: 'b-value', extra: 'y' });
  });

  it('a dry-run apply answers the result and stores nothing', async () => {
    const before = await core.readNamespacedConfigMap({ name: 'settings', namespace: NS });
    const res = await applyConfigMap('controller-a', desired('settings', { a: 'b-value', dry: 'run' }, { app: 'demo' }), false, 'All');
    assert.equal(res.httpStatusCode, 200);
    assert.deepEqual(res.data.data, { a: 'b-value', dry: 'run', extra: 'y' });
    assert.equal(res.data.metadata?.resourceVersion, before.metadata?.resourceVersion);
    assert.deepEqual(await core.readNamespacedConfigMap({ name: 'settings', namespace: NS }), before);

    const created = await applyConfigMap('controller-a', desired('phantom', { a: '1' }), false, 'All');
    assert.equal(created.httpStatusCode, 201);
    const gone = await apiError(core.readNamespacedConfigMap({ name: 'phantom', namespace: NS }));
    assert.equal(gone.code, 404);
  });

  it('an apply with a stale metadata.resourceVersion is a 409 Conflict', async () => {
    const first = await applyConfigMap('versioner', desired('versioned', { v: '1' }));
    const stale = first.data.metadata?.resourceVersion;
    assert.ok(stale);
    // The current version holds.
    const body = (v: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'versioned', resourceVersion: stale }, data: { v } });
    const current = await core.patchNamespacedConfigMapWithHttpInfo({ name: 'versioned', namespace: NS, body: body('2'), fieldManager: 'versioner' }, SSA);
    assert.equal(current.httpStatusCode, 200);
    assert.deepEqual(current.data.data, { v: '2' });
    // Now it is stale.
    const err = await apiError(core.patchNamespacedConfigMap({ name: 'versioned', namespace: NS, body: body('3'), fieldManager: 'versioner' }, SSA));
    assert.equal(err.code, 409);
    const status = statusOf(err);
    assert.equal(status.reason, 'Conflict');
    assert.equal(status.message, 'Operation cannot be fulfilled on configmaps "versioned": the object has been modified; please apply your changes to the latest version and try again');
    assert.deepEqual(status.details, { name: 'versioned', kind: 'configmaps' });
    assert.deepEqual((await core.readNamespacedConfigMap({ name: 'versioned', namespace: NS })).data, { v: '2' });
  });

  it('re-applying a quantity the server normalizes (1000m → 1) writes nothing', async () => {
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'sized' },
      spec: { containers: [{ name: 'main', image: 'busybox', resources: { limits: { cpu: '1000m' } } }] },
    };
    const first = await core.patchNamespacedPodWithHttpInfo({ name: 'sized', namespace: NS, body: pod, fieldManager: 'sizer' }, SSA);
    assert.equal(first.httpStatusCode, 201);
    assert.equal(first.data.spec?.containers[0]?.resources?.limits?.cpu, '1');
    // Into the next second, so that a new entry time would differ from the stored one.
    await sleep(1100);
    const again = await core.patchNamespacedPodWithHttpInfo({ name: 'sized', namespace: NS, body: pod, fieldManager: 'sizer' }, SSA);
    assert.equal(again.httpStatusCode, 200);
    // Only the entry's time would change: upstream reverts it and writes nothing.
    assert.deepEqual(
      again.data.metadata?.managedFields?.map((e) => e.time?.toISOString()),
      first.data.metadata?.managedFields?.map((e) => e.time?.toISOString()),
    );
    assert.equal(again.data.metadata?.resourceVersion, first.data.metadata?.resourceVersion);
  });

  it('an apply without a fieldManager is a 422 naming the field', async () => {
    const err = await apiError(core.patchNamespacedConfigMap({ name: 'settings', namespace: NS, body: desired('settings', { a: '1' }) }, SSA));
    assert.equal(err.code, 422);
    const status = statusOf(err);
    assert.equal(status.reason, 'Invalid');
    // Upstream's ValidatePatchOptions, reported as an invalid PatchOptions.meta.k8s.io.
    assert.equal(status.message, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    assert.equal(status.details.group, 'meta.k8s.io');
    assert.equal(status.details.kind, 'PatchOptions');
    assert.deepEqual(status.details.causes, [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }]);
  });

  it('a status writer applies to the status subresource: the spec stays, the entry names the subresource', async () => {
    await core.createNamespacedPod({
      namespace: NS,
      body: { metadata: { name: 'worker' }, spec: { containers: [{ name: 'main', image: 'busybox', ports: [{ containerPort: 8080 }] }] } },
    });
    const status = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'worker' },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const res = await core.patchNamespacedPodStatusWithHttpInfo({ name: 'worker', namespace: NS, body: status, fieldManager: 'fake-kubelet', force: true }, SSA);
    assert.equal(res.httpStatusCode, 200);
    assert.equal(res.data.status?.phase, 'Running');
    assert.deepEqual(res.data.status?.conditions?.map((c) => [c.type, c.status]), [['Ready', 'True']]);
    assert.equal(res.data.spec?.containers[0]?.image, 'busybox');
    const statusEntry = res.data.metadata?.managedFields?.find((e) => e.subresource === 'status');
    assert.deepEqual(
      [statusEntry?.manager, statusEntry?.operation, statusEntry?.fieldsV1],
      ['fake-kubelet', 'Apply', { 'f:status': { 'f:conditions': { 'k:{"type":"Ready"}': { '.': {}, 'f:status': {}, 'f:type': {} } }, 'f:phase': {} } }],
    );
    // The create is an Update entry of the main resource, with the ports keyed by port and protocol.
    const createEntry = res.data.metadata?.managedFields?.find((e) => e.operation === 'Update');
    const container = (createEntry?.fieldsV1 as any)?.['f:spec']?.['f:containers']?.['k:{"name":"main"}'];
    assert.ok(container?.['f:ports']?.['k:{"containerPort":8080,"protocol":"TCP"}'], JSON.stringify(createEntry?.fieldsV1));
  });

  it('a controller holds a Lease through KubernetesObjectApi: create, renew, conflict, take over with force', async () => {
    const lease = (holder: string, acquired: Date, renewed: Date, transitions: number): V1Lease => ({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'leader', namespace: NS },
      spec: {
        holderIdentity: holder,
        leaseDurationSeconds: 15,
        // MicroTime: V1MicroTime writes six fractional digits, as the server parses them.
        acquireTime: new V1MicroTime(acquired.getTime()),
        renewTime: new V1MicroTime(renewed.getTime()),
        leaseTransitions: transitions,
      },
    });
    const t0 = new Date(Date.now() - 5_000);

    const created = await objects.patch(lease('controller-a', t0, t0, 0), undefined, undefined, 'leader-a', false, PatchStrategy.ServerSideApply);
    assert.equal(created.spec?.holderIdentity, 'controller-a');
    assert.deepEqual(owners(created), [
      ['leader-a', 'Apply', { 'f:spec': { 'f:acquireTime': {}, 'f:holderIdentity': {}, 'f:leaseDurationSeconds': {}, 'f:leaseTransitions': {}, 'f:renewTime': {} } }],
    ]);
    const stored = await coordination.readNamespacedLease({ name: 'leader', namespace: NS });
    assert.equal(new Date(stored.spec?.renewTime as unknown as string).getTime(), t0.getTime());

    // Renewing is the same manager re-applying: no conflict.
    const t1 = new Date(t0.getTime() + 2_000);
    const renewed = await objects.patch(lease('controller-a', t0, t1, 0), undefined, undefined, 'leader-a', false, PatchStrategy.ServerSideApply);
    assert.ok(Number(renewed.metadata?.resourceVersion) > Number(created.metadata?.resourceVersion));
    assert.equal(new Date(renewed.spec?.renewTime as unknown as string).getTime(), t1.getTime());

    // Another candidate without force: every field it would change is in conflict (leaseDurationSeconds agrees).
    const t2 = new Date(t1.getTime() + 1_000);
    const err = await apiError(objects.patch(lease('controller-b', t2, t2, 1), undefined, undefined, 'leader-b', false, PatchStrategy.ServerSideApply));
    assert.equal(err.code, 409);
    const status = statusOf(err);
    assert.equal(status.message, 'Apply failed with 4 conflicts: conflicts with "leader-a":\n- .spec.acquireTime\n- .spec.holderIdentity\n- .spec.leaseTransitions\n- .spec.renewTime');
    assert.deepEqual(
      status.details.causes.map((c: { field: string }) => c.field),
      ['.spec.acquireTime', '.spec.holderIdentity', '.spec.leaseTransitions', '.spec.renewTime'],
    );
    assert.ok(status.details.causes.every((c: { reason: string; message: string }) => c.reason === 'FieldManagerConflict' && c.message === 'conflict with "leader-a"'));

    // With force the new holder takes over; the shared duration stays co-owned.
    const taken = await objects.patch(lease('controller-b', t2, t2, 1), undefined, undefined, 'leader-b', true, PatchStrategy.ServerSideApply);
    assert.equal(taken.spec?.holderIdentity, 'controller-b');
    assert.equal(taken.spec?.leaseTransitions, 1);
    assert.deepEqual(owners(taken), [
      ['leader-a', 'Apply', { 'f:spec': { 'f:leaseDurationSeconds': {} } }],
      ['leader-b', 'Apply', { 'f:spec': { 'f:acquireTime': {}, 'f:holderIdentity': {}, 'f:leaseDurationSeconds': {}, 'f:leaseTransitions': {}, 'f:renewTime': {} } }],
    ]);
    for (const e of taken.metadata?.managedFields ?? []) assert.ok(e.time instanceof Date);

    // The typed client's own patch method, with the apply content type, sees the same Lease.
    const viaTyped = await coordination.patchNamespacedLeaseWithHttpInfo(
      { name: 'leader', namespace: NS, body: lease('controller-b', t2, new Date(t2.getTime() + 1_000), 1), fieldManager: 'leader-b' },
      SSA,
    );
    assert.equal(viaTyped.httpStatusCode, 200);
    assert.equal(viaTyped.data.spec?.holderIdentity, 'controller-b');
  });

  it('a plain Date (milliseconds) in a MicroTime field is refused with the time parser\u2019s error', async () => {
    const body = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'millis', namespace: NS },
      spec: { holderIdentity: 'x', renewTime: new Date('2026-01-01T00:00:00.123Z') },
    };
    const err = await apiError(coordination.patchNamespacedLease({ name: 'millis', namespace: NS, body, fieldManager: 'sloppy' }, SSA));
    // Kubernetes parses MicroTime with the layout RFC3339Micro, which wants six fractional digits.
    assert.ok(
      statusOf(err).message.includes('parsing time "2026-01-01T00:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"'),
      statusOf(err).message,
    );
    const gone = await apiError(coordination.readNamespacedLease({ name: 'millis', namespace: NS }));
    assert.equal(gone.code, 404);
  });
});
