/**
 * The rules upstream's APF ensurer (pkg/registry/flowcontrol/ensurer) uses to decide what to write
 * over a stored configuration object: unit tests of the pure functions; the store-backed passes are
 * in bootstrap-ensure.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StoredKubeObject } from '../../src/api/types.ts';
import { AUTO_UPDATE_ANNOTATION, MANDATORY_PRIORITY_LEVELS, SUGGESTED_FLOW_SCHEMAS, SUGGESTED_PRIORITY_LEVELS } from '../../src/flowcontrol/bootstrap/default-objects.ts';
import { isUnwanted, parseGoBool, reviseIfNeeded, specMatches } from '../../seeds/flowcontrol-bootstrap-strategy.ts';

const workloadLow = SUGGESTED_PRIORITY_LEVELS.find((c) => c.name === 'workload-low')!;
const exempt = MANDATORY_PRIORITY_LEVELS.find((c) => c.name === 'exempt')!;
const probes = SUGGESTED_FLOW_SCHEMAS.find((c) => c.name === 'probes')!;

function stored(name: string, spec: unknown, options: { annotation?: string; generation?: number } = {}): StoredKubeObject {
  return {
    apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
    kind: 'PriorityLevelConfiguration',
    metadata: {
      name,
      uid: 'u',
      resourceVersion: '7',
      generation: options.generation ?? 1,
      ...(options.annotation !== undefined ? { annotations: { [AUTO_UPDATE_ANNOTATION]: options.annotation, other: 'kept' } } : {}),
    },
    spec: structuredClone(spec) as Record<string, unknown>,
  };
}
const changedLow = () => ({ ...structuredClone(workloadLow.spec), limited: { ...(workloadLow.spec.limited as object), nominalConcurrencyShares: 7 } });

describe('the autoupdate annotation is read as Go reads a bool', () => {
  test('every spelling strconv.ParseBool accepts, and nothing else', () => {
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(v), true, v);
    for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(v), false, v);
    for (const v of ['', 'yes', 'tRUE', ' true', undefined]) assert.equal(parseGoBool(v), undefined, String(v));
  });
});

describe('suggested objects', () => {
  test('annotated "true": a changed spec gets the bootstrap spec back, other metadata kept', () => {
    const revised = reviseIfNeeded('prioritylevelconfigurations', 'suggested', stored('workload-low', changedLow(), { annotation: 'true', generation: 4 }), workloadLow);
    assert.deepEqual(revised?.spec, workloadLow.spec);
    assert.deepEqual(revised?.metadata.annotations, { [AUTO_UPDATE_ANNOTATION]: 'true', other: 'kept' });
    assert.equal(revised?.metadata.resourceVersion, '7', 'the write is conditional on the version read');
  });

  test('annotated "True" (any true spelling) counts as true and is left as it is when the spec matches', () => {
    assert.equal(reviseIfNeeded('prioritylevelconfigurations', 'suggested', stored('workload-low', workloadLow.spec, { annotation: 'True', generation: 3 }), workloadLow), undefined);
  });

  test('annotated "false": a changed spec is the administrator\'s and is left alone', () => {
    assert.equal(reviseIfNeeded('prioritylevelconfigurations', 'suggested', stored('workload-low', changedLow(), { annotation: 'false', generation: 9 }), workloadLow), undefined);
  });

  test('no annotation, never changed (generation 1): the spec is kept current and the annotation set to "true"', () => {
    const revised = reviseIfNeeded('prioritylevelconfigurations', 'suggested', stored('workload-low', changedLow(), { generation: 1 }), workloadLow);
    assert.deepEqual(revised?.spec, workloadLow.spec);
    assert.deepEqual(revised?.metadata.annotations, { [AUTO_UPDATE_ANNOTATION]: 'true' });
  });

  test('no annotation, changed since created: the spec is left and the annotation set to "false"', () => {
    const revised = reviseIfNeeded('prioritylevelconfigurations', 'suggested', stored('workload-low', changedLow(), { generation: 2 }), workloadLow);
    assert.deepEqual(revised?.spec, changedLow());
    assert.deepEqual(revised?.metadata.annotations, { [AUTO_UPDATE_ANNOTATION]: 'false' });
  });

  test('an unreadable annotation is judged like a missing one, then rewritten', () => {
    const revised = reviseIfNeeded('prioritylevelconfigurations', 'suggested', stored('workload-low', workloadLow.spec, { annotation: 'yes', generation: 5 }), workloadLow);
    assert.deepEqual(revised?.spec, workloadLow.spec);
    assert.equal(revised?.metadata.annotations?.[AUTO_UPDATE_ANNOTATION], 'false');
  });
});

describe('mandatory objects', () => {
  test('always get their spec back and the annotation "true", whatever the annotation said', () => {
    const changed = { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' }, lendablePercent: 0 } };
    const revised = reviseIfNeeded('prioritylevelconfigurations', 'mandatory', stored('exempt', changed, { annotation: 'false', generation: 5 }), exempt);
    assert.deepEqual(revised?.spec, exempt.spec);
    assert.equal(revised?.metadata.annotations?.[AUTO_UPDATE_ANNOTATION], 'true');
  });

  test("the exempt level's tuned spec.exempt is the administrator's", () => {
    const tuned = { type: 'Exempt', exempt: { nominalConcurrencyShares: 10, lendablePercent: 20 } };
    assert.equal(specMatches('prioritylevelconfigurations', exempt, stored('exempt', tuned)), true);
    assert.equal(reviseIfNeeded('prioritylevelconfigurations', 'mandatory', stored('exempt', tuned, { annotation: 'true', generation: 2 }), exempt), undefined);
    // Without spec.exempt at all the spec differs.
    assert.equal(specMatches('prioritylevelconfigurations', exempt, stored('exempt', { type: 'Exempt' })), false);
  });
});

test('specs compare semantically: a missing list equals an empty one, field order does not matter', () => {
  const reordered = { rules: [{ nonResourceRules: [{ nonResourceURLs: ['/healthz', '/readyz', '/livez'], verbs: ['get'] }], resourceRules: [], subjects: (probes.spec.rules as { subjects: unknown }[])[0]!.subjects }], matchingPrecedence: 2, priorityLevelConfiguration: { name: 'exempt' } };
  assert.equal(specMatches('flowschemas', probes, { spec: reordered }), true);
  assert.equal(specMatches('flowschemas', probes, { spec: { ...reordered, matchingPrecedence: 3 } }), false);
  assert.equal(specMatches('flowschemas', probes, { spec: { ...reordered, distinguisherMethod: { type: 'ByUser' } } }), false);
});

test('objects the bootstrap configuration no longer names are unwanted only when annotated true', () => {
  const names = new Set(['global-default']);
  const meta = (name: string, annotation?: string) => ({ metadata: { name, ...(annotation !== undefined ? { annotations: { [AUTO_UPDATE_ANNOTATION]: annotation } } : {}) } });
  assert.equal(isUnwanted(meta('workload-leader-election', 'true'), names), true);
  assert.equal(isUnwanted(meta('workload-leader-election', '1'), names), true);
  assert.equal(isUnwanted(meta('workload-leader-election', 'false'), names), false);
  assert.equal(isUnwanted(meta('workload-leader-election', 'maybe'), names), false);
  assert.equal(isUnwanted(meta('mine'), names), false);
  assert.equal(isUnwanted(meta('global-default', 'true'), names), false);
});
