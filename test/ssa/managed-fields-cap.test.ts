/**
 * The cap on update entries: past it, the oldest are folded into "ancient-changes" per apiVersion
 * (upstream's capmanagers_test.go, and the default cap of 10 through FieldManager).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messageSchema } from '../../src/schema/type-schema.ts';
import { FieldManager } from '../../src/registry/managed-fields/index.ts';
import { capUpdateManagers } from '../../src/registry/managed-fields/chain/cap-managers.ts';
import { decodeManagedFields } from '../../src/registry/managed-fields/decode.ts';
import { encodeManagedFields } from '../../src/registry/managed-fields/encode.ts';
import { formatTimeSeconds, parseTimeSeconds } from '../../src/registry/managed-fields/time.ts';
import { at, type Obj } from './managed-fields-fixtures.ts';

const podSchema = messageSchema('k8s.io.api.core.v1.Pod');

/** Go's zero time plus `hours`, as upstream's test dates its entries. */
const hoursAfterZero = (hours: number) => formatTimeSeconds(parseTimeSeconds('0001-01-01T00:00:00Z')! + hours * 3600);

/** An update entry of upstream's test: fields named by single letters. */
const entry = (manager: string, apiVersion: string, order: number, fields: string[]) => ({
  manager,
  operation: 'Update',
  apiVersion,
  time: hoursAfterZero(order),
  fieldsType: 'FieldsV1',
  fieldsV1: Object.fromEntries(fields.map((f) => [`f:${f}`, {}])),
});

function capped(input: Obj[], max: number): Obj[] {
  const managed = decodeManagedFields(input);
  capUpdateManagers(managed, max);
  return encodeManagedFields(managed) ?? [];
}

describe('capUpdateManagers (TestCapUpdateManagers, cap 3)', () => {
  const cases: [string, Obj[], Obj[]][] = [
    [
      'one version, no ancient changes',
      [entry('update-manager1', 'v1', 1, ['a']), entry('update-manager2', 'v1', 2, ['b']), entry('update-manager3', 'v1', 3, ['c']), entry('update-manager4', 'v1', 4, ['d'])],
      [entry('ancient-changes', 'v1', 2, ['a', 'b']), entry('update-manager3', 'v1', 3, ['c']), entry('update-manager4', 'v1', 4, ['d'])],
    ],
    [
      'one version, one ancient changes',
      [entry('ancient-changes', 'v1', 2, ['a', 'b']), entry('update-manager3', 'v1', 3, ['c']), entry('update-manager4', 'v1', 4, ['d']), entry('update-manager5', 'v1', 5, ['e'])],
      [entry('ancient-changes', 'v1', 3, ['a', 'b', 'c']), entry('update-manager4', 'v1', 4, ['d']), entry('update-manager5', 'v1', 5, ['e'])],
    ],
    [
      'two versions, no ancient changes',
      [
        entry('update-manager1', 'v1', 1, ['a']),
        entry('update-manager2', 'v2', 2, ['b']),
        entry('update-manager3', 'v1', 3, ['c']),
        entry('update-manager4', 'v1', 4, ['d']),
        entry('update-manager5', 'v1', 5, ['e']),
      ],
      [entry('update-manager2', 'v2', 2, ['b']), entry('ancient-changes', 'v1', 4, ['a', 'c', 'd']), entry('update-manager5', 'v1', 5, ['e'])],
    ],
    [
      'three versions, one ancient changes',
      [
        entry('update-manager2', 'v2', 2, ['b']),
        entry('ancient-changes', 'v1', 4, ['a', 'c', 'd']),
        entry('update-manager5', 'v1', 5, ['e']),
        entry('update-manager6', 'v3', 6, ['f']),
        entry('update-manager7', 'v2', 7, ['g']),
      ],
      [entry('ancient-changes', 'v1', 5, ['a', 'c', 'd', 'e']), entry('update-manager6', 'v3', 6, ['f']), entry('ancient-changes', 'v2', 7, ['b', 'g'])],
    ],
    [
      'three versions, two ancient changes',
      [entry('ancient-changes', 'v1', 5, ['a', 'c', 'd', 'e']), entry('update-manager6', 'v3', 6, ['f']), entry('ancient-changes', 'v2', 7, ['b', 'g']), entry('update-manager8', 'v3', 8, ['h'])],
      [entry('ancient-changes', 'v1', 5, ['a', 'c', 'd', 'e']), entry('ancient-changes', 'v2', 7, ['b', 'g']), entry('ancient-changes', 'v3', 8, ['f', 'h'])],
    ],
    [
      'four versions, two ancient changes',
      [entry('ancient-changes', 'v1', 5, ['a', 'c', 'd', 'e']), entry('update-manager6', 'v3', 6, ['f']), entry('ancient-changes', 'v2', 7, ['b', 'g']), entry('update-manager8', 'v4', 8, ['h'])],
      [entry('ancient-changes', 'v1', 5, ['a', 'c', 'd', 'e']), entry('update-manager6', 'v3', 6, ['f']), entry('ancient-changes', 'v2', 7, ['b', 'g']), entry('update-manager8', 'v4', 8, ['h'])],
    ],
  ];
  for (const [name, input, expected] of cases) {
    test(name, () => {
      const out = capped(input, 3);
      assert.deepEqual(out, expected);
      // Idempotent: capping again changes nothing.
      assert.deepEqual(capped(out, 3), out);
    });
  }

  test('appliers are neither counted nor folded', () => {
    const apply = { manager: 'applier', operation: 'Apply', apiVersion: 'v1', time: hoursAfterZero(9), fieldsType: 'FieldsV1', fieldsV1: { 'f:z': {} } };
    const input = [apply, entry('u1', 'v1', 1, ['a']), entry('u2', 'v1', 2, ['b']), entry('u3', 'v1', 3, ['c'])];
    assert.deepEqual(capped(input, 3), input);
  });

  test("Go's zero time is written as null, as metav1.Time writes it", () => {
    const zero = { ...entry('u1', 'v1', 0, ['a']) };
    assert.deepEqual(capped([zero], 3), [{ ...zero, time: null }]);
  });
});

describe('the cap through FieldManager', () => {
  const podWithLabels = (...labels: string[]) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: Object.fromEntries(labels.map((l) => [l, 'true'])) } });

  test('four updaters under a cap of 3 (TestCapManagersManagerMergesEntries)', () => {
    const fm = new FieldManager({ schema: podSchema, apiVersion: 'v1', kind: 'Pod', subresource: '', maxUpdateManagers: 3 });
    let live: Obj | null = null;
    const labels = ['one', 'two', 'three', 'four'];
    labels.forEach((_, i) => {
      live = fm.update(live, podWithLabels(...labels.slice(0, i + 1)), `fieldmanager_test_update_${i + 1}`, at(i + 1)) as Obj;
    });
    const entries = live!.metadata.managedFields as Obj[];
    assert.deepEqual(
      entries.map((e) => [e.manager, e.time, e.fieldsV1]),
      [
        ['ancient-changes', '2024-01-01T00:00:02Z', { 'f:metadata': { 'f:labels': { '.': {}, 'f:one': {}, 'f:two': {} } } }],
        ['fieldmanager_test_update_3', '2024-01-01T00:00:03Z', { 'f:metadata': { 'f:labels': { 'f:three': {} } } }],
        ['fieldmanager_test_update_4', '2024-01-01T00:00:04Z', { 'f:metadata': { 'f:labels': { 'f:four': {} } } }],
      ],
    );
    // A no-op update by yet another manager leaves them as they are.
    const again = fm.update(live, podWithLabels(...labels), 'no-op-update', at(9)) as Obj;
    assert.deepEqual(again.metadata.managedFields, entries);
  });

  test('the default cap is 10 update entries', () => {
    const fm = new FieldManager({ schema: podSchema, apiVersion: 'v1', kind: 'Pod', subresource: '' });
    let live: Obj | null = null;
    const labels: string[] = [];
    for (let i = 1; i <= 11; i++) {
      labels.push(`l${String(i).padStart(2, '0')}`);
      live = fm.update(live, podWithLabels(...labels), `m${String(i).padStart(2, '0')}`, at(i)) as Obj;
      assert.equal(live.metadata.managedFields.length, i <= 10 ? i : 10);
    }
    const entries = live!.metadata.managedFields as Obj[];
    assert.deepEqual(entries[0]!.manager, 'ancient-changes');
    assert.deepEqual(entries[0]!.time, '2024-01-01T00:00:02Z');
    assert.deepEqual(Object.keys(entries[0]!.fieldsV1['f:metadata']['f:labels']), ['.', 'f:l01', 'f:l02']);
    assert.deepEqual(entries.slice(1).map((e) => e.manager), ['m03', 'm04', 'm05', 'm06', 'm07', 'm08', 'm09', 'm10', 'm11']);
  });
});
