/**
 * The ValidatingAdmissionPolicy status controller, end to end: each policy's validation and
 * message expressions are type-checked against the kinds it matches (and its param kind), and
 * status.observedGeneration and status.typeChecking.expressionWarnings are applied by
 * validatingadmissionpolicy-status-controller, as kube-controller-manager does.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { POLICIES, coreRule, policy } from './policy-fixtures.ts';

const t = serveFile();

async function statusOf(name: string, generation: number): Promise<any> {
  return eventually(async () => {
    const res = await t.api.get(`${POLICIES}/${name}`);
    return res.json?.status?.observedGeneration === generation ? res.json : undefined;
  }, `status of ${name} at generation ${generation}`);
}

test('a policy whose expressions check gets observedGeneration and an empty typeChecking', async () => {
  const res = await t.api.post(POLICIES, policy('tc-clean', { validations: [{ expression: "object.metadata.name.startsWith('a') && size(object.data) < 3", messageExpression: "'bad ' + object.metadata.name" }] }));
  assert.equal(res.status, 201, res.text);
  // Status is the controller's: a create starts it empty.
  assert.deepEqual(res.json.status, {});
  const p = await statusOf('tc-clean', 1);
  assert.deepEqual(p.status, { observedGeneration: 1, typeChecking: {} });
  const entry = p.metadata.managedFields.find((m: any) => m.manager === 'validatingadmissionpolicy-status-controller');
  assert.equal(entry?.operation, 'Apply');
  assert.equal(entry?.subresource, 'status');
});

test('undefined fields of the matched kind are reported per expression, with upstream text', async () => {
  const res = await t.api.post(
    POLICIES,
    policy('tc-fields', {
      validations: [
        { expression: "object.metadata.name != ''" },
        { expression: "object.foo == 'x'", messageExpression: "'bad ' + object.dta.x" },
        { expression: "object.data.all(k, object.data[k].size() < 10) && object.metadata.labelz.size() > 0" },
        { expression: "object.metadata.name == 1" },
      ],
    }),
  );
  assert.equal(res.status, 201, res.text);
  const p = await statusOf('tc-fields', 1);
  assert.deepEqual(p.status.typeChecking.expressionWarnings, [
    { fieldRef: 'spec.validations[1].expression', warning: "/v1, Kind=ConfigMap: ERROR: <input>:1:7: undefined field 'foo'\n | object.foo == 'x'\n | ......^\n" },
    { fieldRef: 'spec.validations[1].messageExpression', warning: "/v1, Kind=ConfigMap: ERROR: <input>:1:16: undefined field 'dta'\n | 'bad ' + object.dta.x\n | ...............^\n" },
    {
      fieldRef: 'spec.validations[2].expression',
      warning:
        "/v1, Kind=ConfigMap: ERROR: <input>:1:66: undefined field 'labelz'\n | object.data.all(k, object.data[k].size() < 10) && object.metadata.labelz.size() > 0\n | .................................................................^\n",
    },
    { fieldRef: 'spec.validations[3].expression', warning: "/v1, Kind=ConfigMap: ERROR: <input>:1:22: found no matching overload for '_==_' applied to '(string, int)'\n | object.metadata.name == 1\n | .....................^\n" },
  ]);
});

test('every matched kind is checked (sorted by group, version, kind); params and variables are typed', async () => {
  const res = await t.api.post(
    POLICIES,
    policy('tc-kinds', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [coreRule(['secrets', 'configmaps']), { apiGroups: ['coordination.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['leases'] }] },
      variables: [{ name: 'meta', expression: 'object.metadata' }],
      validations: [{ expression: "object.data.size() > 0" }, { expression: "variables.meta.nme == params.dat.x" }, { expression: 'variables.missing' }],
    }),
  );
  assert.equal(res.status, 422, 'variables.missing is refused at write time');
  const created = await t.api.post(
    POLICIES,
    policy('tc-kinds', {
      paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
      matchConstraints: { resourceRules: [coreRule(['secrets', 'configmaps']), { apiGroups: ['coordination.k8s.io'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['leases'] }] },
      variables: [{ name: 'meta', expression: 'object.metadata' }],
      validations: [{ expression: 'object.data.size() > 0' }, { expression: "variables.meta.nme == 'x'" }, { expression: "params.dat.x == 'y'" }],
    }),
  );
  assert.equal(created.status, 201, created.text);
  const p = await statusOf('tc-kinds', 1);
  const warnings = p.status.typeChecking.expressionWarnings;
  assert.equal(warnings.length, 3);
  assert.equal(warnings[0].fieldRef, 'spec.validations[0].expression');
  // ConfigMap and Secret have data; Lease does not.
  assert.equal(warnings[0].warning, "coordination.k8s.io/v1, Kind=Lease: ERROR: <input>:1:7: undefined field 'data'\n | object.data.size() > 0\n | ......^\n");
  assert.equal(warnings[1].fieldRef, 'spec.validations[1].expression');
  const all = (issue: (gvk: string) => string) => [issue('/v1, Kind=ConfigMap'), issue('/v1, Kind=Secret'), issue('coordination.k8s.io/v1, Kind=Lease')].join('\n');
  // Variables are typed by their expressions (meta is an ObjectMeta).
  assert.equal(warnings[1].warning, all((gvk) => `${gvk}: ERROR: <input>:1:15: undefined field 'nme'\n | variables.meta.nme == 'x'\n | ..............^\n`));
  // params is typed from its kind (a ConfigMap has no dat).
  assert.equal(warnings[2].fieldRef, 'spec.validations[2].expression');
  assert.equal(warnings[2].warning, all((gvk) => `${gvk}: ERROR: <input>:1:7: undefined field 'dat'\n | params.dat.x == 'y'\n | ......^\n`));
});

test('a spec change is checked again at the new generation; wildcard rules check nothing', async () => {
  const created = await t.api.post(POLICIES, policy('tc-update', { validations: [{ expression: 'object.nope == 1' }] }));
  assert.equal(created.status, 201, created.text);
  let p = await statusOf('tc-update', 1);
  assert.equal(p.status.typeChecking.expressionWarnings.length, 1);
  const updated = await t.api.put(`${POLICIES}/tc-update`, { ...p, spec: { ...p.spec, validations: [{ expression: 'object.data.size() == 1' }] } });
  assert.equal(updated.status, 200, updated.text);
  assert.equal(updated.json.metadata.generation, 2);
  p = await statusOf('tc-update', 2);
  assert.equal(p.status.observedGeneration, 2);
  assert.equal(p.status.typeChecking?.expressionWarnings, undefined);

  const wild = await t.api.post(POLICIES, policy('tc-wild', { matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }, validations: [{ expression: 'object.nope == 1' }] }));
  assert.equal(wild.status, 201, wild.text);
  assert.deepEqual((await statusOf('tc-wild', 1)).status, { observedGeneration: 1, typeChecking: {} });
});
