/**
 * failurePolicy, end to end: runtime errors, expressions that do not compile, and configuration
 * errors (a param kind the server does not serve) refuse the request under Fail with upstream's
 * messages and are ignored under Ignore; a binding whose policy does not exist does nothing until
 * the policy is created.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { BINDINGS, POLICIES, binding, coreRule, createAll, install, policy, storeUnvalidated, until, untilRefused, dryRunConfigMap } from './policy-fixtures.ts';

const t = serveFile();

/** A policy for this file's namespace, matching ConfigMaps labelled `marker: <marker>`. */
function marked(name: string, marker: string, spec: Record<string, unknown>) {
  return policy(name, {
    matchConstraints: {
      resourceRules: [coreRule(['configmaps'], ['CREATE'])],
      namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': t.ns } },
      objectSelector: { matchLabels: { marker } },
    },
    ...spec,
  });
}

/** A ConfigMap labelled for one policy. */
function cm(name: string, marker: string) {
  return configMap(name, {}, { labels: { marker } });
}

async function bothPolicies(name: string, spec: Record<string, unknown>): Promise<void> {
  for (const failurePolicy of ['Ignore', 'Fail']) {
    const n = `${name}-${failurePolicy.toLowerCase()}`;
    await install(t.api, marked(n, n, { failurePolicy, ...spec }), binding(`${n}-binding`, n));
  }
}

test('a runtime error refuses under Fail with upstream text and is ignored under Ignore', async () => {
  await bothPolicies('runtime', { validations: [{ expression: "object.nonExistentProperty == 'someval'" }] });
  const res = await untilRefused(t.api, t.ns, cm('r1', 'runtime-fail'));
  assertStatus(res, 422, 'Invalid', `configmaps "r1" is forbidden: ValidatingAdmissionPolicy 'runtime-fail' with binding 'runtime-fail-binding' denied request: expression 'object.nonExistentProperty == 'someval'' resulted in error: no such key: nonExistentProperty`);
  assert.equal((await dryRunConfigMap(t.api, t.ns, cm('r2', 'runtime-ignore'))).status, 201);
});

test('an expression that does not compile refuses under Fail and is ignored under Ignore', async () => {
  // The API refuses such an expression; one stored under other rules is judged when it runs.
  for (const failurePolicy of ['Ignore', 'Fail']) {
    const n = `compile-${failurePolicy.toLowerCase()}`;
    await storeUnvalidated(t.srv, marked(n, n, { failurePolicy, validations: [{ expression: "1 + 'a' == 2" }] }));
    await createAll(t.api, [BINDINGS, binding(`${n}-binding`, n)]);
  }
  const res = await untilRefused(t.api, t.ns, cm('c1', 'compile-fail'));
  assertStatus(
    res,
    422,
    'Invalid',
    `configmaps "c1" is forbidden: ValidatingAdmissionPolicy 'compile-fail' with binding 'compile-fail-binding' denied request: compilation error: compilation failed: ERROR: <input>:1:3: found no matching overload for '_+_' applied to '(int, string)'\n | 1 + 'a' == 2\n | ..^`,
  );
  assert.equal((await dryRunConfigMap(t.api, t.ns, cm('c2', 'compile-ignore'))).status, 201);
});

test('a param kind the server does not serve is a policy configuration error', async () => {
  await bothPolicies('paramkind', { paramKind: { apiVersion: 'example.com/v1', kind: 'Missing' }, validations: [{ expression: 'true' }] });
  const res = await untilRefused(t.api, t.ns, cm('p1', 'paramkind-fail'));
  assertStatus(res, 422, 'Invalid', `configmaps "p1" is forbidden: ValidatingAdmissionPolicy 'paramkind-fail' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Missing'`);
  assert.deepEqual(res.json.details.causes, [{ message: "ValidatingAdmissionPolicy 'paramkind-fail' denied request: failed to configure policy: failed to find resource referenced by paramKind: 'example.com/v1, Kind=Missing'" }]);
  assert.equal((await dryRunConfigMap(t.api, t.ns, cm('p2', 'paramkind-ignore'))).status, 201);
});

test('a binding of a missing policy does nothing; the policy takes effect once created', async () => {
  await createAll(t.api, [BINDINGS, binding('early-binding', 'late-policy')]);
  // Another policy in force shows the bindings were seen.
  await install(t.api, marked('witness', 'witness', { validations: [{ expression: 'false' }] }), binding('witness-binding', 'witness'));
  await untilRefused(t.api, t.ns, cm('w', 'witness'));
  assert.equal((await dryRunConfigMap(t.api, t.ns, cm('l1', 'late'))).status, 201);
  await createAll(t.api, [POLICIES, marked('late-policy', 'late', { validations: [{ expression: 'false', message: 'late policy' }] })]);
  const res = await until(() => dryRunConfigMap(t.api, t.ns, cm('l2', 'late')), (r) => r.status === 422, 'the late policy');
  assert.match(res.json.message, /ValidatingAdmissionPolicy 'late-policy' with binding 'early-binding' denied request: late policy$/);
  // Deleting the policy takes it out of force again.
  assert.equal((await t.api.delete(`${POLICIES}/late-policy`)).status, 200);
  await until(() => dryRunConfigMap(t.api, t.ns, cm('l3', 'late')), (r) => r.status === 201, 'the policy to be gone');
});
