/**
 * What the API priority and fairness measures need on a server: service accounts that APF does not
 * exempt (system:masters is), their tokens, and the roles that let them work.
 *
 *   - `bench-apf/reader`, `bench-apf/flooder`: the suggested `service-accounts` schema puts them in
 *     `workload-low`, one flow each (ByUser);
 *   - `kube-system/elector`: the suggested `system-leader-election` schema puts its Lease renewals in
 *     `leader-election`;
 *   - the user `bench-human` (the admin impersonating it, as `kubectl --as` does): an ordinary
 *     authenticated user, whom the suggested `global-default` schema puts in `global-default`.
 */
import type https from 'node:https';
import { expect } from './http.ts';
import type { BenchServer } from './server.ts';

export const APF_NAMESPACE = 'bench-apf';
/** Headers that make the admin's request one of the ordinary user `bench-human`. */
export const HUMAN = { 'Impersonate-User': 'bench-human' };
export const LEASE_NAME = 'bench-apf-leader';

export interface ApfTarget {
  readonly label: string;
  readonly server: BenchServer;
  /** Admin (system:masters) agent. */
  readonly admin: https.Agent;
  /** Agent without a client certificate: requests authenticate by their bearer token. */
  readonly anonymous: https.Agent;
  readonly tokens: { readonly reader: string; readonly flooder: string; readonly elector: string };
  url(path: string): URL;
}

export async function prepareApfTarget(label: string, server: BenchServer, admin: https.Agent): Promise<ApfTarget> {
  const url = (p: string) => new URL(p, server.url);
  const post = (p: string, body: object) => expect(201, url(p), admin, 'POST', JSON.stringify(body));
  await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: APF_NAMESPACE } });
  for (const [ns, name] of [
    [APF_NAMESPACE, 'reader'],
    [APF_NAMESPACE, 'flooder'],
    ['kube-system', 'elector'],
  ] as const) {
    await post(`/api/v1/namespaces/${ns}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } });
  }
  await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${APF_NAMESPACE}/roles`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'bench-apf' },
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create'] }],
  });
  await post(`/apis/rbac.authorization.k8s.io/v1/namespaces/${APF_NAMESPACE}/rolebindings`, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'bench-apf' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'bench-apf' },
    subjects: [
      ...['reader', 'flooder'].map((name) => ({ kind: 'ServiceAccount', name, namespace: APF_NAMESPACE })),
      { kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: HUMAN['Impersonate-User'] },
    ],
  });
  await post('/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'bench-apf-elector' },
    rules: [{ apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] }],
  });
  await post('/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/rolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'bench-apf-elector' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'bench-apf-elector' },
    subjects: [{ kind: 'ServiceAccount', name: 'elector', namespace: 'kube-system' }],
  });
  await post('/apis/coordination.k8s.io/v1/namespaces/kube-system/leases', {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: LEASE_NAME },
    spec: { holderIdentity: 'elector', leaseDurationSeconds: 15 },
  });
  const token = async (ns: string, name: string) => {
    const issued = await post(`/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } });
    return (JSON.parse(issued.text) as { status: { token: string } }).status.token;
  };
  const tokens = { reader: await token(APF_NAMESPACE, 'reader'), flooder: await token(APF_NAMESPACE, 'flooder'), elector: await token('kube-system', 'elector') };
  const anonymous = server.anonymousAgent();
  // The bindings reach the server's RBAC view through its watch: wait until the reader may read.
  const probe = url(`/api/v1/namespaces/${APF_NAMESPACE}/configmaps?limit=1`);
  for (let i = 0; ; i++) {
    try {
      await expect(200, probe, anonymous, 'GET', undefined, { Authorization: `Bearer ${tokens.reader}` });
      break;
    } catch (err) {
      if (i > 100) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { label, server, admin, anonymous, tokens, url };
}
