/**
 * ValidatingAdmissionPolicy with the Deny action, end to end: a small-ConfigMap policy refuses
 * ConfigMaps with too many data keys with upstream's message, reason, code and cause; the message
 * comes from messageExpression, else message, else the expression; the validation's reason picks
 * the status code; the first failing validation is the one reported.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertStatus, configMap } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { binding, dryRunConfigMap, install, policy, untilRefused } from './policy-fixtures.ts';

const t = serveFile();

test('a small-ConfigMap policy refuses a ConfigMap with too many data keys (422 Invalid, upstream text)', async () => {
  await install(
    t.api,
    policy('small-configmaps', { validations: [{ expression: 'size(object.data) <= 2' }] }),
    binding('small-configmaps-binding', 'small-configmaps', { matchResources: { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': t.ns } } } }),
  );
  const big = configMap('big', { a: '1', b: '2', c: '3' });
  await untilRefused(t.api, t.ns, big);
  const res = await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps`, big);
  const message = "ValidatingAdmissionPolicy 'small-configmaps' with binding 'small-configmaps-binding' denied request: failed expression: size(object.data) <= 2";
  const s = assertStatus(res, 422, 'Invalid', `configmaps "big" is forbidden: ${message}`);
  assert.deepEqual(s.details, { name: 'big', kind: 'configmaps', causes: [{ message }] });

  // A generated name is generated before validating admission: the message names it.
  const generated = await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps`, configMap(undefined, { a: '1', b: '2', c: '3' }, { generateName: 'big-' }));
  assert.equal(generated.status, 422, generated.text);
  assert.match(generated.json.message, /^configmaps "big-[a-z0-9]{5}" is forbidden: ValidatingAdmissionPolicy 'small-configmaps'/);

  const small = await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps`, configMap('small', { a: '1', b: '2' }));
  assert.equal(small.status, 201, small.text);
  // Updates are judged too.
  const grown = await t.api.put(`/api/v1/namespaces/${t.ns}/configmaps/small`, { ...small.json, data: { a: '1', b: '2', c: '3' } });
  assertStatus(grown, 422, 'Invalid', `configmaps "small" is forbidden: ${message}`);
});

test('the message is messageExpression, else message, else the failed expression; reason sets the code', async () => {
  const ns = t.ns;
  await install(
    t.api,
    policy('messages', {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } },
      validations: [
        { expression: "!has(object.data) || !('one' in object.data)", messageExpression: "'key one is not allowed in ' + object.metadata.name", message: 'static one', reason: 'Forbidden' },
        { expression: "!has(object.data) || !('two' in object.data)", message: '  static two  ', reason: 'RequestEntityTooLarge' },
        { expression: "  !has(object.data) || !('three' in object.data)  " },
        // A messageExpression that yields an empty string, or errors, falls back to the message.
        { expression: "!has(object.data) || !('four' in object.data)", messageExpression: "'   '", message: 'static four' },
        { expression: "!has(object.data) || !('five' in object.data)", messageExpression: 'string(object.nope)', message: 'static five' },
      ],
    }),
    binding('messages-binding', 'messages'),
  );
  const prefix = "ValidatingAdmissionPolicy 'messages' with binding 'messages-binding' denied request: ";
  await untilRefused(t.api, ns, configMap('m1', { one: 'x' }));
  assertStatus(await dryRunConfigMap(t.api, ns, configMap('m1', { one: 'x' })), 403, 'Forbidden', `configmaps "m1" is forbidden: ${prefix}key one is not allowed in m1`);
  assertStatus(await dryRunConfigMap(t.api, ns, configMap('m2', { two: 'x' })), 413, 'RequestEntityTooLarge', `configmaps "m2" is forbidden: ${prefix}static two`);
  assertStatus(await dryRunConfigMap(t.api, ns, configMap('m3', { three: 'x' })), 422, 'Invalid', `configmaps "m3" is forbidden: ${prefix}failed expression: !has(object.data) || !('three' in object.data)`);
  assertStatus(await dryRunConfigMap(t.api, ns, configMap('m4', { four: 'x' })), 422, 'Invalid', `configmaps "m4" is forbidden: ${prefix}static four`);
  assertStatus(await dryRunConfigMap(t.api, ns, configMap('m5', { five: 'x' })), 422, 'Invalid', `configmaps "m5" is forbidden: ${prefix}static five`);
  // Several failures: the first validation's message and reason win.
  assertStatus(await dryRunConfigMap(t.api, ns, configMap('m6', { two: 'x', three: 'y' })), 413, 'RequestEntityTooLarge', `configmaps "m6" is forbidden: ${prefix}static two`);
  assert.equal((await dryRunConfigMap(t.api, ns, configMap('m7', { six: 'x' }))).status, 201);
});

test('a delete is judged on the old object', async () => {
  const ns = t.ns;
  await install(
    t.api,
    policy('no-delete-protected', {
      matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['DELETE', 'CREATE'], resources: ['configmaps'] }], namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } } },
      validations: [
        { expression: "request.operation != 'DELETE' || !has(oldObject.metadata.labels) || !('protected' in oldObject.metadata.labels)", message: 'protected' },
        { expression: "request.operation != 'CREATE' || object.metadata.name != 'gen-forbidden'", message: 'no such name' },
      ],
    }),
    binding('no-delete-protected-binding', 'no-delete-protected'),
  );
  const created = await t.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('keep', {}, { labels: { protected: 'yes' } }));
  assert.equal(created.status, 201, created.text);
  const probe = () => t.api.delete(`/api/v1/namespaces/${ns}/configmaps/keep?dryRun=All`);
  let res = await probe();
  for (let i = 0; i < 100 && res.status < 400; i++) res = await probe();
  assertStatus(res, 422, 'Invalid', `configmaps "keep" is forbidden: ValidatingAdmissionPolicy 'no-delete-protected' with binding 'no-delete-protected-binding' denied request: protected`);
  const other = await t.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('loose', {}));
  assert.equal(other.status, 201);
  assert.equal((await t.api.delete(`/api/v1/namespaces/${ns}/configmaps/loose`)).status, 200);
});
