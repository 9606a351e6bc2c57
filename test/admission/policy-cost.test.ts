/**
 * Cost limits, end to end: one expression may cost 1,000,000 (cel-go's `operation cancelled:
 * actual cost limit exceeded`), a binding's expressions 10,000,000 together (upstream's `validation
 * failed due to running out of cost budget …`), match conditions 2,500,000 of their own, and each
 * param a binding selects is evaluated with a budget of its own. The expressions are sized so that
 * the outcome holds under cel-go's cost model too (about 5 per inner iteration here).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { binding, coreRule, createAll, install, policy, untilRefused, until, dryRunConfigMap, POLICIES, BINDINGS } from './policy-fixtures.ts';

const t = serveFile();

const list = (n: number) => `[${Array.from({ length: n }, (_, i) => i).join(', ')}]`;
/** An expression that holds and costs about n² × 5. */
const costly = (n: number) => `${list(n)}.all(x, ${list(n)}.all(y, y >= 0))`;

function marked(name: string, spec: Record<string, unknown>) {
  return policy(name, {
    matchConstraints: { resourceRules: [coreRule(['configmaps'], ['CREATE'])], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': t.ns } }, objectSelector: { matchLabels: { marker: name } } },
    ...spec,
  });
}
const cm = (name: string, marker: string) => configMap(name, {}, { labels: { marker } });

test('one expression over the per-call limit fails with cel-go\'s cancellation error', async () => {
  const expression = costly(1500);
  await install(t.api, marked('per-call', { validations: [{ expression }] }), binding('per-call-binding', 'per-call'));
  const res = await untilRefused(t.api, t.ns, cm('a', 'per-call'));
  assertStatus(res, 422, 'Invalid', `configmaps "a" is forbidden: ValidatingAdmissionPolicy 'per-call' with binding 'per-call-binding' denied request: expression '${expression}' resulted in error: operation cancelled: actual cost limit exceeded`);
});

test('a binding\'s expressions together over the runtime budget stop the evaluation', async () => {
  const validations = Array.from({ length: 30 }, () => ({ expression: costly(300) }));
  await install(t.api, marked('budget', { validations }), binding('budget-binding', 'budget'));
  const res = await untilRefused(t.api, t.ns, cm('b', 'budget'));
  assertStatus(res, 422, 'Invalid', `configmaps "b" is forbidden: ValidatingAdmissionPolicy 'budget' with binding 'budget-binding' denied request: validation failed due to running out of cost budget, no further validation rules will be run`);
});

test('match conditions have a budget of their own', async () => {
  const matchConditions = Array.from({ length: 6 }, (_, i) => ({ name: `c${i}`, expression: costly(300) }));
  await install(t.api, marked('conditions-budget', { matchConditions, validations: [{ expression: 'true' }] }), binding('conditions-budget-binding', 'conditions-budget'));
  const res = await untilRefused(t.api, t.ns, cm('c', 'conditions-budget'));
  assertStatus(res, 422, 'Invalid', `configmaps "c" is forbidden: ValidatingAdmissionPolicy 'conditions-budget' with binding 'conditions-budget-binding' denied request: validation failed due to running out of cost budget, no further validation rules will be run`);
});

test('each selected param is evaluated with a budget of its own', async () => {
  for (const n of [1, 2, 3]) await createAll(t.api, [`/api/v1/namespaces/${t.ns}/configmaps`, configMap(`budget-param-${n}`, { n: String(n) }, { labels: { 'budget-param': 'yes' } })]);
  // About 5.4M per param: three params together would be over 10M.
  const validations = [{ expression: "params.data.n != '0'", message: 'marker' }, ...Array.from({ length: 12 }, () => ({ expression: costly(300) }))];
  await createAll(
    t.api,
    [POLICIES, marked('per-param', { paramKind: { apiVersion: 'v1', kind: 'ConfigMap' }, validations })],
    [BINDINGS, binding('per-param-binding', 'per-param', { paramRef: { selector: { matchLabels: { 'budget-param': 'yes' } }, parameterNotFoundAction: 'Deny' } })],
  );
  // In force once a param that fails the marker validation is refused.
  await createAll(t.api, [`/api/v1/namespaces/${t.ns}/configmaps`, configMap('budget-param-0', { n: '0' }, { labels: { 'budget-param': 'yes' } })]);
  await untilRefused(t.api, t.ns, cm('d', 'per-param'));
  assert.equal((await t.api.delete(`/api/v1/namespaces/${t.ns}/configmaps/budget-param-0`)).status, 200);
  const res = await until(() => dryRunConfigMap(t.api, t.ns, cm('d', 'per-param')), (r) => r.status !== 422 || !r.text.includes('marker'), 'the marker param to be gone');
  assert.equal(res.status, 201, res.text);
});
