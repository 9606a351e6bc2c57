/**
 * Shared pieces of the ValidatingAdmissionPolicy tests: policies and bindings as a client writes
 * them, and waiting until a change is in force (policies take effect through watches).
 */
import assert from 'node:assert/strict';
import { NO_ADMISSION } from '../../src/admission/chain.ts';
import { systemContext } from '../../src/api/request-context.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { validatingAdmissionPolicies } from '../../src/kinds/validating-admission-policy.ts';
import { ResourceStore } from '../../src/registry/resource-store.ts';
import type { Api } from '../helpers/fixtures.ts';
import type { Reply } from '../helpers/http.ts';
import type { TestServer } from '../helpers/server.ts';

export const POLICIES = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicies';
export const BINDINGS = '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings';

/** A rule for core resources (configmaps by default) and the given operations. */
export function coreRule(resources: string[] = ['configmaps'], operations: string[] = ['CREATE', 'UPDATE'], extra: Record<string, unknown> = {}) {
  return { apiGroups: [''], apiVersions: ['v1'], operations, resources, ...extra };
}

/** A ValidatingAdmissionPolicy; `spec` overrides the defaults (Fail, configmaps CREATE/UPDATE). */
export function policy(name: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: { failurePolicy: 'Fail', matchConstraints: { resourceRules: [coreRule()] }, ...spec },
  };
}

/** A binding of `policyName` with Deny unless `spec` says otherwise. */
export function binding(name: string, policyName: string, spec: Record<string, unknown> = {}) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicyBinding',
    metadata: { name },
    spec: { policyName, validationActions: ['Deny'], ...spec },
  };
}

/** Creates objects, failing on anything but 201. */
export async function createAll(api: Api, ...items: [string, unknown][]): Promise<void> {
  for (const [path, body] of items) {
    const res = await api.post(path, body);
    assert.equal(res.status, 201, `POST ${path}: ${res.text}`);
  }
}

/** Creates a policy and its binding. */
export async function install(api: Api, p: unknown, b: unknown): Promise<void> {
  await createAll(api, [POLICIES, p], [BINDINGS, b]);
}

/** Deletes a policy and its binding (ignoring what is already gone). */
export async function uninstall(api: Api, policyName: string, bindingName: string): Promise<void> {
  await api.delete(`${BINDINGS}/${bindingName}`);
  await api.delete(`${POLICIES}/${policyName}`);
}

/** Repeats `attempt` until `done` holds for its reply (5 s at most), returning that reply. */
export async function until(attempt: () => Promise<Reply>, done: (r: Reply) => boolean, what: string, timeoutMs = 5000): Promise<Reply> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await attempt();
    if (done(r)) return r;
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}; last reply ${r.status}: ${r.text}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}

/** A dry-run create of a ConfigMap (nothing is stored). */
export function dryRunConfigMap(api: Api, ns: string, body: unknown): Promise<Reply> {
  return api.post(`/api/v1/namespaces/${ns}/configmaps?dryRun=All`, body);
}

/** Waits until a dry-run create of `body` is refused (the policy is in force), returning that reply. */
export function untilRefused(api: Api, ns: string, body: unknown, what = 'the policy to be in force'): Promise<Reply> {
  return until(() => dryRunConfigMap(api, ns, body), (r) => r.status >= 400, what);
}

/**
 * Stores a policy without the API's validation, as a policy stored under another version's rules
 * would be (its expressions may then not compile): how upstream's runtime compile errors arise.
 */
export async function storeUnvalidated(srv: TestServer, p: unknown): Promise<void> {
  const kind = { ...validatingAdmissionPolicies, strategy: { ...validatingAdmissionPolicies.strategy, validate: undefined } };
  await new ResourceStore(kind, srv.server.storage, NO_ADMISSION).create(systemContext(), '', p as KubeObject);
}
