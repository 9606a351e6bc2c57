/**
 * Pieces of the ValidatingAdmissionPolicy plugin without a server: status codes of reasons
 * (Unauthorized is reachable only by a policy the API would refuse), the compile errors upstream's
 * typed `request` and `namespaceObject` give, the AdmissionRequest's omitted fields, the namespace
 * a namespace's own requests carry, namespace selectors on namespace deletes, and how many kinds
 * the type checker looks at.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { systemContext } from '../../src/api/request-context.ts';
import type { AdmissionAttributes } from '../../src/admission/attributes.ts';
import { compile } from '../../src/admission/policy/cel.ts';
import { PolicyMatcher, requestNamespace } from '../../src/admission/policy/matching.ts';
import { reasonToCode } from '../../src/admission/policy/plugin.ts';
import { admissionRequest, namespaceObject } from '../../src/admission/policy/request.ts';
import { typesToCheck } from '../../src/admission/policy/type-check.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import type { Informer } from '../../src/registry/informer.ts';
import type { ResourceStore } from '../../src/registry/resource-store.ts';

function attrs(over: Partial<AdmissionAttributes>): AdmissionAttributes {
  return {
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    name: 'x',
    namespace: 'ns',
    user: { name: 'jane', groups: ['devs', 'system:authenticated'] },
    dryRun: false,
    context: systemContext(),
    ...over,
  };
}

test('reasons map to upstream status codes', () => {
  assert.equal(reasonToCode('Forbidden'), 403);
  assert.equal(reasonToCode('Unauthorized'), 401);
  assert.equal(reasonToCode('RequestEntityTooLarge'), 413);
  assert.equal(reasonToCode('Invalid'), 422);
  assert.equal(reasonToCode('Anything'), 422);
});

test('request and namespaceObject are typed as upstream declares them', () => {
  const decls = { params: false, authorizer: false };
  assert.equal(compile("request.uid == ''", decls, 'bool').error, "compilation failed: ERROR: <input>:1:8: undefined field 'uid'\n | request.uid == ''\n | .......^");
  assert.equal(compile("request.resource.foo2 == 'nope'", decls, 'bool').error, "compilation failed: ERROR: <input>:1:17: undefined field 'foo2'\n | request.resource.foo2 == 'nope'\n | ................^");
  assert.equal(compile('request.dryRun == 1', decls, 'bool').error?.split('\n')[0], "compilation failed: ERROR: <input>:1:16: found no matching overload for '_==_' applied to '(bool, int)'");
  assert.equal(compile("namespaceObject.metadata.UID != '' && namespaceObject.spec.finalizers.size() > 0", decls, 'bool').error, undefined);
  assert.equal(compile("request.userInfo.extra['k'][0] == 'v' && request.kind.kind == 'Pod'", decls, 'bool').error, undefined);
  assert.equal(compile('object.anything', decls, 'bool').error, 'must evaluate to bool but got dyn');
});

test('the AdmissionRequest leaves out empty optional fields; a namespace\'s own updates carry its name as namespace', () => {
  const cluster = admissionRequest(attrs({ namespace: '', kind: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' }, resource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' } }), { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' }, { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' });
  assert.deepEqual(cluster, {
    kind: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
    resource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
    requestKind: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' },
    requestResource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' },
    name: 'x',
    operation: 'CREATE',
    userInfo: { username: 'jane', groups: ['devs', 'system:authenticated'] },
    dryRun: false,
    options: null,
  });
  const nsAttrs = (operation: AdmissionAttributes['operation'], subresource = '') =>
    attrs({ operation, subresource, namespace: '', name: 'team-a', kind: { group: '', version: 'v1', kind: 'Namespace' }, resource: { group: '', version: 'v1', resource: 'namespaces' } });
  assert.equal(requestNamespace(nsAttrs('CREATE')), '');
  assert.equal(requestNamespace(nsAttrs('UPDATE')), 'team-a');
  assert.equal(requestNamespace(nsAttrs('UPDATE', 'status')), 'team-a');
  assert.equal(requestNamespace(nsAttrs('DELETE')), 'team-a');
  const status = admissionRequest(nsAttrs('UPDATE', 'status'), { group: '', version: 'v1', resource: 'namespaces' }, { group: '', version: 'v1', kind: 'Namespace' });
  assert.equal(status.namespace, 'team-a');
  assert.equal(status.subResource, 'status');
  assert.equal(status.requestSubResource, 'status');
});

test('namespaceObject keeps spec, status and the metadata upstream declares', () => {
  const reduced = namespaceObject({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: 'a', uid: 'u', resourceVersion: '5', labels: { x: 'y' }, managedFields: [{ manager: 'm' }], ownerReferences: [], creationTimestamp: '2025-01-01T00:00:00Z' },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
  assert.deepEqual(reduced, {
    metadata: { name: 'a', uid: 'u', resourceVersion: '5', labels: { x: 'y' }, creationTimestamp: '2025-01-01T00:00:00Z' },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
});

test('a namespace selector on a namespace\'s delete reads the namespace\'s labels; on its create, the new object\'s', async () => {
  const labelled = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', uid: 'u', resourceVersion: '1', labels: { env: 'prod' } } };
  const view = { get: (_ns: string, name: string) => (name === 'team-a' ? labelled : undefined) } as unknown as Informer;
  const store = { get: () => Promise.reject(new Error('no store reads expected')) } as unknown as ResourceStore;
  const matcher = new PolicyMatcher(builtinKinds, view, store);
  const criteria = { matchPolicy: 'Equivalent', namespaceSelector: { matchLabels: { env: 'prod' } }, objectSelector: {}, resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['namespaces'] }] };
  const ns = (operation: AdmissionAttributes['operation'], labels: Record<string, string>) =>
    attrs({ operation, namespace: '', name: 'team-a', kind: { group: '', version: 'v1', kind: 'Namespace' }, resource: { group: '', version: 'v1', resource: 'namespaces' }, object: operation === 'DELETE' ? undefined : { metadata: { name: 'team-a', labels } }, oldObject: operation === 'CREATE' ? undefined : labelled });
  assert.ok(await matcher.matches(criteria, ns('DELETE', {})));
  assert.ok(await matcher.matches(criteria, ns('CREATE', { env: 'prod' })));
  assert.equal(await matcher.matches(criteria, ns('CREATE', { env: 'dev' })), undefined);
  // An update is judged by the labels it writes.
  assert.equal(await matcher.matches(criteria, ns('UPDATE', { env: 'dev' })), undefined);
  // Cluster-scoped objects other than namespaces always pass a namespace selector.
  const role = attrs({ namespace: '', kind: { group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'ClusterRole' }, resource: { group: 'rbac.authorization.k8s.io', version: 'v1', resource: 'clusterroles' } });
  assert.ok(await matcher.matches({ ...criteria, resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] }, role));
});

test('the type checker looks at 10 kinds at most, from rules without wildcards', () => {
  const rule = (apiGroups: string[], resources: string[]) => ({ apiGroups, apiVersions: ['v1'], resources });
  const names = (spec: object) => typesToCheck(spec, builtinKinds).map((k) => `${k.group}/${k.kind}`);
  assert.deepEqual(names({ matchConstraints: { resourceRules: [rule([''], ['secrets', 'configmaps', 'pods/status', '*'])] } }), ['/ConfigMap', '/Secret']);
  assert.deepEqual(names({ matchConstraints: { resourceRules: [rule(['*'], ['configmaps'])] } }), []);
  const many = ['configmaps', 'secrets', 'serviceaccounts', 'events', 'namespaces', 'limitranges', 'resourcequotas', 'persistentvolumes', 'persistentvolumeclaims', 'nodes', 'pods'];
  assert.equal(names({ matchConstraints: { resourceRules: [rule([''], many)] } }).length, 10);
});
