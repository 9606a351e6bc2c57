/**
 * The CRD status controllers on the registry: names accepted and Established, name conflicts in a
 * group (upstream's reasons and messages) and their release when the holder goes, the
 * NonStructuralSchema condition of a legacy stored schema, and the API approval condition of
 * protected groups.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { CrdControllers } from '../../src/controllers/crd/crd-controllers.ts';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { openTestRegistry, testContext, type TestRegistry } from '../helpers/registry.ts';
import { acceptedNamesOf, conditionOf, crdStore, createCrd, getCrd, standInKind, startCrdControllers, until, untilCondition } from './crd-helpers.ts';

let reg: TestRegistry;
let controllers: CrdControllers;

before(async () => {
  reg = await openTestRegistry();
  controllers = await startCrdControllers(reg);
});

after(async () => {
  controllers.stop();
  await reg.close();
});

test('a CRD alone in its group gets its names accepted, then Established', async () => {
  const crd = await createCrd(reg, { group: 'alone.example.com', plural: 'crontabs', kind: 'CronTab', shortNames: ['ct'] });
  const done = await untilCondition(reg, crd.metadata.name, 'Established', 'True');
  assert.deepEqual(acceptedNamesOf(done), { plural: 'crontabs', singular: 'crontab', shortNames: ['ct'], kind: 'CronTab', listKind: 'CronTabList' });
  assert.deepEqual(
    { ...conditionOf(done, 'NamesAccepted'), lastTransitionTime: undefined },
    { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found', lastTransitionTime: undefined },
  );
  const established = conditionOf(done, 'Established')!;
  assert.equal(established.reason, 'InitialNamesAccepted');
  assert.equal(established.message, 'the initial names have been accepted');
  assert.ok(established.lastTransitionTime);
  // Nothing else to say about a structural CRD outside the protected groups.
  assert.equal(conditionOf(done, 'NonStructuralSchema'), undefined);
  assert.equal(conditionOf(done, 'KubernetesAPIApprovalPolicyConformant'), undefined);
});

test('a second CRD asking for a kind the group has granted gets NamesAccepted False (KindConflict) and is not established', async () => {
  const group = 'kinds.example.com';
  const first = await createCrd(reg, { group, plural: 'foos', kind: 'Foo' });
  await untilCondition(reg, first.metadata.name, 'Established', 'True');
  const second = await createCrd(reg, { group, plural: 'bars', singular: 'bar', kind: 'Foo', listKind: 'BarList' });
  const refused = await untilCondition(reg, second.metadata.name, 'NamesAccepted', 'False');
  assert.equal(conditionOf(refused, 'NamesAccepted')!.reason, 'KindConflict');
  assert.equal(conditionOf(refused, 'NamesAccepted')!.message, '"Foo" is already in use');
  // The names that do not conflict are granted; the kind is not.
  assert.deepEqual(acceptedNamesOf(refused), { plural: 'bars', singular: 'bar', kind: '', listKind: 'BarList' });
  await controllers.idle();
  const still = await getCrd(reg, second.metadata.name);
  assert.deepEqual({ ...conditionOf(still, 'Established'), lastTransitionTime: undefined }, {
    type: 'Established',
    status: 'False',
    reason: 'NotAccepted',
    message: 'not all names are accepted',
    lastTransitionTime: undefined,
  });
});

test('a plural another CRD of the group holds as its singular is a PluralConflict, released when that CRD is deleted', async () => {
  const group = 'plurals.example.com';
  const holder = await createCrd(reg, { group, plural: 'widgets', singular: 'gizmos', kind: 'Widget' });
  await untilCondition(reg, holder.metadata.name, 'Established', 'True');
  const other = await createCrd(reg, { group, plural: 'gizmos', kind: 'Gizmo' });
  const refused = await untilCondition(reg, other.metadata.name, 'NamesAccepted', 'False', 'PluralConflict');
  assert.equal(conditionOf(refused, 'NamesAccepted')!.message, '"gizmos" is already in use');

  // The holder's resource is served (as the serving loop would), so its cleanup can run; once it
  // is gone the group is judged again and the other CRD gets its names.
  reg.surface.add(standInKind(group, 'widgets', 'Widget', holder));
  await crdStore(reg).delete(testContext(), '', holder.metadata.name, { dryRun: false });
  await until(async () => (await getCrd(reg, holder.metadata.name)) === undefined, 'the holder to be gone');
  const accepted = await untilCondition(reg, other.metadata.name, 'Established', 'True');
  assert.equal(conditionOf(accepted, 'NamesAccepted')!.reason, 'NoConflicts');
  assert.equal(acceptedNamesOf(accepted)?.plural, 'gizmos');
});

test('a short name already taken in the group is a ShortNamesConflict', async () => {
  const group = 'short.example.com';
  const first = await createCrd(reg, { group, plural: 'alphas', kind: 'Alpha', shortNames: ['al'] });
  await untilCondition(reg, first.metadata.name, 'Established', 'True');
  const second = await createCrd(reg, { group, plural: 'betas', kind: 'Beta', shortNames: ['al'] });
  const refused = await untilCondition(reg, second.metadata.name, 'NamesAccepted', 'False', 'ShortNamesConflict');
  assert.equal(conditionOf(refused, 'NamesAccepted')!.message, '"al" is already in use');
});

/** Writes the CRD to storage as an older server could have stored it, skipping today's validation. */
async function storeLegacy(name: string, change: (crd: StoredKubeObject & { spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] } }) => void) {
  const store = crdStore(reg);
  const current = (await store.get(testContext(), '', name)) as { object: StoredKubeObject; resourceVersion: number };
  const next = structuredClone(current.object) as Parameters<typeof change>[0];
  change(next);
  next.metadata.generation = (next.metadata.generation ?? 1) + 1;
  await reg.storage.update(store.key('', name), next, current.resourceVersion);
}

test('a stored schema that is not structural gets NonStructuralSchema True (Violations), removed once it is structural again', async () => {
  const crd = await createCrd(reg, { group: 'legacy.example.com', plural: 'olds', kind: 'Old' });
  await untilCondition(reg, crd.metadata.name, 'Established', 'True');
  await storeLegacy(crd.metadata.name, (c) => {
    c.spec.versions[0]!.schema.openAPIV3Schema = { type: 'object', properties: { spec: { properties: { size: { type: 'string' } } } } };
  });
  const flagged = await untilCondition(reg, crd.metadata.name, 'NonStructuralSchema', 'True');
  assert.equal(conditionOf(flagged, 'NonStructuralSchema')!.reason, 'Violations');
  assert.equal(
    conditionOf(flagged, 'NonStructuralSchema')!.message,
    'spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields',
  );

  await storeLegacy(crd.metadata.name, (c) => {
    c.spec.versions[0]!.schema.openAPIV3Schema = { type: 'object', properties: { spec: { type: 'object' } } };
  });
  await until(async () => conditionOf(await getCrd(reg, crd.metadata.name), 'NonStructuralSchema') === undefined, 'the condition to be removed');
});

test('CRDs of protected groups get KubernetesAPIApprovalPolicyConformant from their approval annotation', async () => {
  const approved = await createCrd(reg, {
    group: 'approved.k8s.io',
    plural: 'things',
    kind: 'Thing',
    annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/78458' },
  });
  const unapproved = await createCrd(reg, {
    group: 'sandbox.kubernetes.io',
    plural: 'things',
    kind: 'Thing',
    annotations: { 'api-approved.kubernetes.io': 'unapproved, experimental-only' },
  });
  const a = await untilCondition(reg, approved.metadata.name, 'KubernetesAPIApprovalPolicyConformant', 'True');
  assert.equal(conditionOf(a, 'KubernetesAPIApprovalPolicyConformant')!.reason, 'ApprovedAnnotation');
  assert.equal(conditionOf(a, 'KubernetesAPIApprovalPolicyConformant')!.message, 'approved in https://github.com/kubernetes/kubernetes/pull/78458');
  const u = await untilCondition(reg, unapproved.metadata.name, 'KubernetesAPIApprovalPolicyConformant', 'False');
  assert.equal(conditionOf(u, 'KubernetesAPIApprovalPolicyConformant')!.reason, 'UnapprovedAnnotation');
  assert.equal(conditionOf(u, 'KubernetesAPIApprovalPolicyConformant')!.message, 'not approved: "unapproved, experimental-only"');
});
