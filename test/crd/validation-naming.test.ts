/**
 * The status controllers' decisions, as upstream's naming_controller_test.go (TestSync) and the
 * establishing and API-approval controllers state them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  apiApprovalCondition,
  calculateNamesAndConditions,
  establishedCondition,
  nonStructuralCondition,
  setCondition,
  type CrdCondition,
  type CrdNames,
  type CustomResourceDefinition,
} from '../../src/crd/validation/index.ts';

function crd(name: string, spec: string[] = [], status: string[] | undefined = undefined, conditions: CrdCondition[] = []): CustomResourceDefinition {
  const [plural, group] = [name.slice(0, name.indexOf('.')), name.slice(name.indexOf('.') + 1)];
  const n = (x: string[]): CrdNames => ({ plural: x[0] ?? '', singular: x[1] ?? '', kind: x[2] ?? '', listKind: x[3] ?? '', ...(x.length > 4 ? { shortNames: x.slice(4) } : {}) });
  return {
    metadata: { name },
    spec: { group, names: spec.length ? n(spec) : { plural } },
    status: { ...(status ? { acceptedNames: n(status) } : {}), conditions },
  };
}
const names = (...x: string[]): CrdNames => ({ plural: x[0] ?? '', singular: x[1] ?? '', kind: x[2] ?? '', listKind: x[3] ?? '', ...(x.length > 4 ? { shortNames: x.slice(4) } : {}) });
const accepted: CrdCondition = { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' };
const notAccepted: CrdCondition = { type: 'NamesAccepted', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
const installing: CrdCondition = { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' };
const notEstablished: CrdCondition = { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' };
const conflict = (reason: string, message: string): CrdCondition => ({ type: 'NamesAccepted', status: 'False', reason, message });
const FULL = ['alfa', 'delta-singular', 'echo-kind', 'foxtrot-listkind', 'golf-shortname-1', 'hotel-shortname-2'];

/** Names as Go compares them (an absent list is nil). */
const norm = (n: CrdNames) => ({ plural: n.plural ?? '', singular: n.singular ?? '', kind: n.kind ?? '', listKind: n.listKind ?? '', shortNames: n.shortNames?.length ? n.shortNames : undefined });

const cases: { name: string; in: CustomResourceDefinition; existing: CustomResourceDefinition[]; names: CrdNames; namesAccepted: CrdCondition; established: CrdCondition }[] = [
  { name: 'first resource', in: crd('alfa.bravo.com'), existing: [], names: { plural: 'alfa' }, namesAccepted: accepted, established: installing },
  { name: 'different groups', in: crd('alfa.bravo.com', FULL), existing: [crd('alfa.charlie.com', [], FULL)], names: names(...FULL), namesAccepted: accepted, established: installing },
  {
    name: 'conflict plural to singular',
    in: crd('alfa.bravo.com', FULL),
    existing: [crd('india.bravo.com', [], ['india', 'alfa', '', ''])],
    names: names('', ...FULL.slice(1)),
    namesAccepted: conflict('PluralConflict', '"alfa" is already in use'),
    established: notEstablished,
  },
  {
    name: 'conflict singular to shortName',
    in: crd('alfa.bravo.com', FULL),
    existing: [crd('india.bravo.com', [], ['india', 'indias', '', '', 'delta-singular'])],
    names: names('alfa', '', ...FULL.slice(2)),
    namesAccepted: conflict('SingularConflict', '"delta-singular" is already in use'),
    established: notEstablished,
  },
  {
    name: 'conflict on shortName to shortName',
    in: crd('alfa.bravo.com', FULL),
    existing: [crd('india.bravo.com', [], ['india', 'indias', '', '', 'hotel-shortname-2'])],
    names: names(...FULL.slice(0, 4)),
    namesAccepted: conflict('ShortNamesConflict', '"hotel-shortname-2" is already in use'),
    established: notEstablished,
  },
  {
    name: 'conflict on kind to listkind',
    in: crd('alfa.bravo.com', FULL),
    existing: [crd('india.bravo.com', [], ['india', 'indias', '', 'echo-kind'])],
    names: names('alfa', 'delta-singular', '', ...FULL.slice(3)),
    namesAccepted: conflict('KindConflict', '"echo-kind" is already in use'),
    established: notEstablished,
  },
  {
    name: 'conflict on listkind to kind',
    in: crd('alfa.bravo.com', FULL),
    existing: [crd('india.bravo.com', [], ['india', 'indias', 'foxtrot-listkind', ''])],
    names: names('alfa', 'delta-singular', 'echo-kind', '', ...FULL.slice(4)),
    namesAccepted: conflict('ListKindConflict', '"foxtrot-listkind" is already in use'),
    established: notEstablished,
  },
  { name: 'no conflict on resource and kind', in: crd('alfa.bravo.com', FULL), existing: [crd('india.bravo.com', [], ['india', 'echo-kind', '', ''])], names: names(...FULL), namesAccepted: accepted, established: installing },
  {
    name: 'merge on conflicts',
    in: crd('alfa.bravo.com', FULL, ['zulu', 'yankee-singular', 'xray-kind', 'whiskey-listkind', 'victor-shortname-1', 'uniform-shortname-2']),
    existing: [crd('india.bravo.com', [], ['india', 'indias', 'foxtrot-listkind', '', 'delta-singular'])],
    names: names('alfa', 'yankee-singular', 'echo-kind', 'whiskey-listkind', 'golf-shortname-1', 'hotel-shortname-2'),
    namesAccepted: conflict('ListKindConflict', '"foxtrot-listkind" is already in use'),
    established: notEstablished,
  },
  {
    name: 'merge on conflicts shortNames as one',
    in: crd('alfa.bravo.com', FULL, ['zulu', 'yankee-singular', 'xray-kind', 'whiskey-listkind', 'victor-shortname-1', 'uniform-shortname-2']),
    existing: [crd('india.bravo.com', [], ['india', 'indias', 'foxtrot-listkind', '', 'delta-singular', 'golf-shortname-1'])],
    names: names('alfa', 'yankee-singular', 'echo-kind', 'whiskey-listkind', 'victor-shortname-1', 'uniform-shortname-2'),
    namesAccepted: conflict('ListKindConflict', '"foxtrot-listkind" is already in use'),
    established: notEstablished,
  },
  { name: 'no conflicts on self', in: crd('alfa.bravo.com', FULL, FULL), existing: [crd('alfa.bravo.com', FULL, FULL)], names: names(...FULL), namesAccepted: accepted, established: installing },
  { name: 'no conflicts on self, remove shortname', in: crd('alfa.bravo.com', FULL.slice(0, 5), FULL), existing: [crd('alfa.bravo.com', FULL, FULL)], names: names(...FULL.slice(0, 5)), namesAccepted: accepted, established: installing },
  { name: 'installing before with true condition', in: crd('alfa.bravo.com', [], undefined, [accepted]), existing: [], names: { plural: 'alfa' }, namesAccepted: accepted, established: installing },
  { name: 'not installing before with false condition', in: crd('alfa.bravo.com', [], undefined, [notAccepted]), existing: [], names: { plural: 'alfa' }, namesAccepted: accepted, established: installing },
];

describe('naming controller (calculateNamesAndConditions)', () => {
  for (const c of cases) {
    it(c.name, () => {
      const r = calculateNamesAndConditions(c.in, c.existing);
      assert.deepEqual(norm(r.acceptedNames), norm(c.names));
      assert.deepEqual(r.namesAccepted, c.namesAccepted);
      assert.deepEqual(r.established, c.established);
    });
  }

  it('keeps an Established True condition when names conflict later', () => {
    const established: CrdCondition = { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' };
    const r = calculateNamesAndConditions(crd('alfa.bravo.com', FULL, undefined, [accepted, established]), [crd('india.bravo.com', [], ['india', 'alfa', '', ''])]);
    assert.equal(r.namesAccepted.reason, 'PluralConflict');
    assert.deepEqual(r.established, established);
  });

  it('lists several short-name conflicts as an aggregate', () => {
    const r = calculateNamesAndConditions(crd('alfa.bravo.com', FULL), [crd('india.bravo.com', [], ['india', 'indias', '', '', 'golf-shortname-1', 'hotel-shortname-2'])]);
    assert.deepEqual(r.namesAccepted, conflict('ShortNamesConflict', '["golf-shortname-1" is already in use, "hotel-shortname-2" is already in use]'));
  });
});

describe('establishing controller', () => {
  it('establishes once names are accepted', () => {
    assert.deepEqual(establishedCondition(crd('alfa.bravo.com', [], undefined, [accepted, installing])), { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
  });
  it('does nothing before names are accepted or once established', () => {
    assert.equal(establishedCondition(crd('alfa.bravo.com', [], undefined, [notAccepted])), undefined);
    assert.equal(establishedCondition(crd('alfa.bravo.com', [], undefined, [accepted, { type: 'Established', status: 'True' }])), undefined);
  });
  it('refuses an invalid conversion webhook CA bundle', () => {
    const c = crd('alfa.bravo.com', [], undefined, [accepted]);
    c.spec!.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x', caBundle: Buffer.from('not pem').toString('base64') } } };
    assert.deepEqual(establishedCondition(c), { type: 'Established', status: 'False', reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid' });
  });
});

describe('API approval condition', () => {
  const withAnnotation = (group: string, value?: string): CustomResourceDefinition => ({ metadata: { name: `x.${group}`, ...(value !== undefined ? { annotations: { 'api-approved.kubernetes.io': value } } : {}) }, spec: { group } });
  it('is absent outside protected groups', () => assert.equal(apiApprovalCondition(withAnnotation('example.com')), undefined));
  it('states each annotation case', () => {
    assert.deepEqual(apiApprovalCondition(withAnnotation('apps.k8s.io')), {
      type: 'KubernetesAPIApprovalPolicyConformant',
      status: 'False',
      reason: 'MissingAnnotation',
      message: 'protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
    });
    assert.deepEqual(apiApprovalCondition(withAnnotation('kubernetes.io', 'https://github.com/kubernetes/kubernetes/pull/78458')), {
      type: 'KubernetesAPIApprovalPolicyConformant',
      status: 'True',
      reason: 'ApprovedAnnotation',
      message: 'approved in https://github.com/kubernetes/kubernetes/pull/78458',
    });
    assert.deepEqual(apiApprovalCondition(withAnnotation('x.kubernetes.io', 'unapproved, experimental')), { type: 'KubernetesAPIApprovalPolicyConformant', status: 'False', reason: 'UnapprovedAnnotation', message: 'not approved: "unapproved, experimental"' });
    assert.equal(apiApprovalCondition(withAnnotation('k8s.io', 'just because'))?.reason, 'InvalidAnnotation');
  });
});

describe('NonStructuralSchema and setCondition', () => {
  it('reports a non-structural schema of a version', () => {
    const c: CustomResourceDefinition = { spec: { group: 'a.b', versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', properties: { spec: {} } } } }] } };
    const cond = nonStructuralCondition(c);
    assert.equal(cond?.reason, 'Violations');
    assert.match(cond!.message!, /spec\.versions\[0\]\.schema\.openAPIV3Schema\.properties\[spec\]\.type: Required value/);
    c.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!.spec = { type: 'object' };
    assert.equal(nonStructuralCondition(c), undefined);
  });
  it('keeps lastTransitionTime unless the status changes', () => {
    const first = setCondition(undefined, accepted, 't1');
    assert.equal(first[0]!.lastTransitionTime, 't1');
    assert.equal(setCondition(first, { ...accepted, message: 'm' }, 't2')[0]!.lastTransitionTime, 't1');
    assert.equal(setCondition(first, notAccepted, 't3')[0]!.lastTransitionTime, 't3');
  });
});
