import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '../../src/api/errors.ts';
import { systemContext } from '../../src/api/request-context.ts';
import type { AdmissionAttributes } from '../../src/admission/attributes.ts';
import { PodSecurity, DEFAULT_CONFIGURATION } from '../../src/admission/builtin/pod-security/admission.ts';
import { evaluatePod, forbiddenDetail, parseVersion, policyToEvaluate } from '../../src/admission/builtin/pod-security/policy.ts';
import type { Informer } from '../../src/registry/informer.ts';
import type { ResourceStore } from '../../src/registry/resource-store.ts';
import { assertStatus, create, createNamespace, uniqueName, type Api } from '../helpers/fixtures.ts';
import type { Reply } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';

// Expectations from k8s.io/pod-security-admission (policy checks and their tests, admission.go) as
// of Kubernetes 1.34.
const pod = (name: string, spec: Record<string, unknown> = {}, container: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, ...metadata },
  spec: { containers: [{ name: 'c', image: 'nginx:1.27', ...container }], ...spec },
});
/** A container that meets the restricted level. */
const RESTRICTED_CONTAINER = { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } } };
const RESTRICTED_VIOLATIONS =
  'allowPrivilegeEscalation != false (container "c" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "c" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "c" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "c" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")';

function warnings(res: Reply): string[] {
  const raw = res.headers.warning;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : raw.split(/, (?=299 )/);
  return list.map((v) => Buffer.from(v, 'latin1').toString('utf8'));
}
const warning = (text: string) => `299 - ${JSON.stringify(text)}`;

async function labelledNamespace(api: Api, labels: Record<string, string>): Promise<string> {
  const name = uniqueName('psa');
  const res = await api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });
  assert.equal(res.status, 201, res.text);
  return name;
}

describe('PodSecurity (on by default)', () => {
  const t = serveFile(['--disable-admission-plugins=ServiceAccount']);

  test('enforce=restricted refuses a plain pod with every violation, in upstream words, and admits a compliant one', async () => {
    const ns = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/enforce': 'restricted' });
    const res = await t.api.post(`/api/v1/namespaces/${ns}/pods`, pod('plain'));
    assertStatus(res, 403, 'Forbidden', `pods "plain" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_VIOLATIONS}`);
    assert.deepEqual(res.json.details, { name: 'plain', kind: 'pods' });
    await create(t.api, `/api/v1/namespaces/${ns}/pods`, pod('ok', {}, RESTRICTED_CONTAINER));
    // Pod-level settings count for every container.
    await create(
      t.api,
      `/api/v1/namespaces/${ns}/pods`,
      pod('pod-level', { securityContext: { runAsNonRoot: true, seccompProfile: { type: 'Localhost', localhostProfile: 'p.json' } } }, { securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } } }),
    );
    // Volumes: only the allowed types.
    assertStatus(
      await t.api.post(`/api/v1/namespaces/${ns}/pods`, pod('vols', { volumes: [{ name: 'h', hostPath: { path: '/' } }, { name: 'n', nfs: { server: 's', path: '/' } }, { name: 'e', emptyDir: {} }] }, RESTRICTED_CONTAINER)),
      403,
      'Forbidden',
      `pods "vols" is forbidden: violates PodSecurity "restricted:latest": restricted volume types (volumes "h", "n" use restricted volume types "hostPath", "nfs")`,
    );
    // Generated names: the refusal names the generated pod, as upstream's validating phase does.
    const generated = await t.api.post(`/api/v1/namespaces/${ns}/pods`, { ...pod(''), metadata: { generateName: 'gen-' } });
    assertStatus(generated, 403, 'Forbidden', /^pods "gen-[a-z0-9]{5}" is forbidden: violates PodSecurity "restricted:latest": /);
  });

  test('enforce=baseline: privileged containers, host namespaces and ports, capabilities, sysctls', async () => {
    const ns = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/enforce': 'baseline' });
    const path = `/api/v1/namespaces/${ns}/pods`;
    assertStatus(
      await t.api.post(path, pod('priv', {}, { securityContext: { privileged: true, capabilities: { add: ['NET_ADMIN', 'SYS_TIME', 'CHOWN'] } } })),
      403,
      'Forbidden',
      'pods "priv" is forbidden: violates PodSecurity "baseline:latest": non-default capabilities (container "c" must not include "NET_ADMIN", "SYS_TIME" in securityContext.capabilities.add), privileged (container "c" must not set securityContext.privileged=true)',
    );
    assertStatus(
      await t.api.post(path, pod('host', { hostNetwork: true, hostPID: true, securityContext: { sysctls: [{ name: 'kernel.msgmax', value: '1' }, { name: 'net.ipv4.tcp_syncookies', value: '1' }] } }, { ports: [{ containerPort: 80 }] })),
      403,
      'Forbidden',
      'pods "host" is forbidden: violates PodSecurity "baseline:latest": host namespaces (hostNetwork=true, hostPID=true), hostPort (container "c" uses hostPort 80), forbidden sysctls (kernel.msgmax)',
    );
    // A plain pod is baseline.
    await create(t.api, path, pod('plain'));
  });

  test('versions: a check applies from the version that introduced it; latest has them all', async () => {
    const v122 = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.22' });
    const root = { securityContext: { ...RESTRICTED_CONTAINER.securityContext, runAsNonRoot: undefined, runAsUser: 0 } };
    const rootPod = pod('root', { securityContext: { runAsNonRoot: true } }, root);
    // runAsUser=0 is refused from v1.23 on.
    await create(t.api, `/api/v1/namespaces/${v122}/pods`, rootPod);
    const latest = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/enforce': 'restricted' });
    assertStatus(await t.api.post(`/api/v1/namespaces/${latest}/pods`, rootPod), 403, 'Forbidden', 'pods "root" is forbidden: violates PodSecurity "restricted:latest": runAsUser=0 (container "c" must not set runAsUser=0)');
    // Probe hosts are refused from v1.34.
    const probed = pod('probed', {}, { livenessProbe: { httpGet: { host: '10.0.0.1', port: 80 } }, lifecycle: { preStop: { tcpSocket: { host: 'example.com', port: 1 } } } });
    const v133 = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.33' });
    await create(t.api, `/api/v1/namespaces/${v133}/pods`, probed);
    const v134 = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.34' });
    assertStatus(
      await t.api.post(`/api/v1/namespaces/${v134}/pods`, probed),
      403,
      'Forbidden',
      'pods "probed" is forbidden: violates PodSecurity "baseline:v1.34": probe or lifecycle host (container "c" uses probe or lifecycle hosts "10.0.0.1", "example.com")',
    );
    // A version past the newest is judged as the newest, and named as given.
    const future = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.99' });
    assertStatus(await t.api.post(`/api/v1/namespaces/${future}/pods`, probed), 403, 'Forbidden', /^pods "probed" is forbidden: violates PodSecurity "baseline:v1.99": probe or lifecycle host/);
  });

  test('warn: the pod is admitted and the client warned; an enforce level raises warn unless warn is set', async () => {
    const ns = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/warn': 'restricted' });
    const res = await t.api.post(`/api/v1/namespaces/${ns}/pods`, pod('warned'));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(warnings(res), [warning(`would violate PodSecurity "restricted:latest": ${RESTRICTED_VIOLATIONS}`)]);
    const both = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/warn-version': 'v1.24' });
    const r2 = await t.api.post(`/api/v1/namespaces/${both}/pods`, pod('warned'));
    assert.equal(r2.status, 201, r2.text);
    assert.equal(warnings(r2).length, 1);
    assert.match(warnings(r2)[0]!, /^299 - "would violate PodSecurity \\"restricted:v1.24\\": allowPrivilegeEscalation != false/);
    // enforce=baseline alone: warn follows it, so a baseline pod gets no warning.
    const enforceOnly = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/enforce': 'baseline' });
    const r3 = await t.api.post(`/api/v1/namespaces/${enforceOnly}/pods`, pod('quiet'));
    assert.equal(r3.status, 201, r3.text);
    assert.deepEqual(warnings(r3), []);
  });

  test('updates are judged only when they change an image', async () => {
    const ns = await createNamespace(t.api, uniqueName('psa'));
    const path = `/api/v1/namespaces/${ns}/pods`;
    const created = await create(t.api, path, pod('p'));
    const labelled = await t.api.patch(`/api/v1/namespaces/${ns}`, { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } }, 'application/merge-patch+json');
    assert.equal(labelled.status, 200, labelled.text);
    const relabel = await t.api.patch(`${path}/p`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    assert.equal(relabel.status, 200, relabel.text);
    assertStatus(
      await t.api.patch(`${path}/p`, { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } }, 'application/strategic-merge-patch+json'),
      403,
      'Forbidden',
      `pods "p" is forbidden: violates PodSecurity "restricted:latest": ${RESTRICTED_VIOLATIONS}`,
    );
    assert.ok(created);
  });

  test('namespace labels: bad values are refused; a stricter enforce level warns of the pods that break it', async () => {
    const bad = await t.api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'psa-bad', labels: { 'pod-security.kubernetes.io/enforce': 'strict', 'pod-security.kubernetes.io/warn-version': '1.30' } } });
    assertStatus(
      bad,
      422,
      'Invalid',
      'Namespace "psa-bad" is invalid: [metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "strict": must be one of privileged, baseline, restricted, metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"]',
    );
    const ns = await createNamespace(t.api, uniqueName('psa'));
    const path = `/api/v1/namespaces/${ns}/pods`;
    await create(t.api, path, pod('b-plain'));
    await create(t.api, path, pod('a-plain'));
    await create(t.api, path, pod('priv', {}, { securityContext: { privileged: true } }));
    await create(t.api, path, pod('fine', {}, RESTRICTED_CONTAINER));
    const res = await t.api.patch(`/api/v1/namespaces/${ns}`, { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } }, 'application/merge-patch+json');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(warnings(res), [
      warning(`existing pods in namespace "${ns}" violate the new PodSecurity enforce level "restricted:latest"`),
      warning('a-plain (and 1 other pod): allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile'),
      warning('priv: privileged, allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile'),
    ]);
    // The same level again, or a looser one, checks nothing.
    const again = await t.api.patch(`/api/v1/namespaces/${ns}`, { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'baseline' } } }, 'application/merge-patch+json');
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(warnings(again), []);
    // Bad labels on update are refused, unless they were already there.
    assertStatus(await t.api.patch(`/api/v1/namespaces/${ns}`, { metadata: { labels: { 'pod-security.kubernetes.io/audit': 'x' } } }, 'application/merge-patch+json'), 422, 'Invalid');
  });
});

describe('PodSecurity disabled', () => {
  const t = serveFile(['--disable-admission-plugins=PodSecurity,ServiceAccount']);

  test('labels enforce nothing', async () => {
    const ns = await labelledNamespace(t.api, { 'pod-security.kubernetes.io/enforce': 'restricted' });
    await create(t.api, `/api/v1/namespaces/${ns}/pods`, pod('priv', {}, { securityContext: { privileged: true } }));
    const bad = await t.api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: uniqueName('psa'), labels: { 'pod-security.kubernetes.io/enforce': 'strict' } } });
    assert.equal(bad.status, 201, bad.text);
  });
});

describe('PodSecurity audit annotations and exemptions', () => {
  const namespaces: Record<string, Record<string, string>> = {
    audited: { 'pod-security.kubernetes.io/audit': 'baseline', 'pod-security.kubernetes.io/enforce': 'baseline', 'pod-security.kubernetes.io/enforce-version': 'v1.30' },
    open: {},
    strict: { 'pod-security.kubernetes.io/enforce': 'restricted' },
  };
  const view = { get: (_ns: string, name: string) => (namespaces[name] ? { metadata: { name, labels: namespaces[name] } } : undefined) } as unknown as Informer;
  const store = {} as ResourceStore;
  const attrs = (namespace: string, object: Record<string, unknown>, user = 'alice'): AdmissionAttributes & { context: { auditAnnotations: Record<string, string>; warnings: string[] } } =>
    ({
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind: 'Pod' },
      resource: { group: '', version: 'v1', resource: 'pods' },
      subresource: '',
      name: 'p',
      namespace,
      object,
      user: { name: user, groups: [] },
      dryRun: false,
      context: { ...systemContext(), auditAnnotations: {} },
    }) as never;

  test('audit: the violations and the enforced policy go to the audit event', async () => {
    const plugin = new PodSecurity(store, view, undefined);
    const a = attrs('audited', pod('p', {}, { securityContext: { privileged: true } }));
    await assert.rejects(Promise.resolve(plugin.validate(a)), (err: ApiError) => err.code === 403);
    assert.deepEqual(a.context.auditAnnotations, {
      'pod-security.kubernetes.io/enforce-policy': 'baseline:v1.30',
      'pod-security.kubernetes.io/audit-violations': 'would violate PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)',
    });
    const open = attrs('open', pod('p'));
    await plugin.validate(open);
    assert.deepEqual(open.context.auditAnnotations, { 'pod-security.kubernetes.io/enforce-policy': 'privileged:latest' });
  });

  test('exempt users, namespaces and runtime classes are admitted and say why', async () => {
    const plugin = new PodSecurity(store, view, undefined, { ...DEFAULT_CONFIGURATION, exemptions: { usernames: ['ci-bot'], namespaces: ['strict-exempt'], runtimeClasses: ['kata'] } });
    const privileged = pod('p', {}, { securityContext: { privileged: true } });
    const byUser = attrs('strict', privileged, 'ci-bot');
    await plugin.validate(byUser);
    assert.deepEqual(byUser.context.auditAnnotations, { 'pod-security.kubernetes.io/exempt': 'user' });
    const byClass = attrs('strict', { ...privileged, spec: { ...privileged.spec, runtimeClassName: 'kata' } });
    await plugin.validate(byClass);
    assert.deepEqual(byClass.context.auditAnnotations, { 'pod-security.kubernetes.io/exempt': 'runtimeClass' });
    const byNamespace = attrs('strict-exempt', privileged);
    await plugin.validate(byNamespace);
    assert.deepEqual(byNamespace.context.auditAnnotations, { 'pod-security.kubernetes.io/exempt': 'namespace' });
    await assert.rejects(Promise.resolve(plugin.validate(attrs('strict', privileged))), (err: ApiError) => err.code === 403);
  });
});

describe('Pod Security Standards checks', () => {
  const lv = (level: 'baseline' | 'restricted', version = 'latest') => ({ level, version: parseVersion(version)! });
  const judge = (level: 'baseline' | 'restricted', spec: Record<string, unknown>, meta: Record<string, unknown> = {}, version = 'latest') => {
    const r = evaluatePod(lv(level, version), meta, spec);
    return r.allowed ? '' : forbiddenDetail(r);
  };
  const c = (name: string, extra: Record<string, unknown> = {}) => ({ name, image: 'x', ...extra });

  test('AppArmor, SELinux, seccomp, procMount and hostProcess at baseline', () => {
    assert.equal(
      judge('baseline', { securityContext: { appArmorProfile: { type: 'Unconfined' } }, containers: [c('a', { securityContext: { appArmorProfile: { type: 'Unconfined' } } })] }, { annotations: { 'container.apparmor.security.beta.kubernetes.io/a': 'unconfined' } }),
      // Upstream quotes without escaping: the annotation's own quotes stay as they are.
      'forbidden AppArmor profiles (pod and container "a" and annotation must not set AppArmor profile type to "Unconfined", "container.apparmor.security.beta.kubernetes.io/a="unconfined"")',
    );
    assert.equal(
      judge('baseline', { securityContext: { seLinuxOptions: { type: 'spc_t', user: 'u' } }, containers: [c('a', { securityContext: { seLinuxOptions: { role: 'r', type: 'container_engine_t' } } })] }),
      'seLinuxOptions (pod and container "a" set forbidden securityContext.seLinuxOptions: type "spc_t"; user may not be set; role may not be set)',
    );
    // container_engine_t is allowed from v1.31.
    assert.equal(judge('baseline', { containers: [c('a', { securityContext: { seLinuxOptions: { type: 'container_engine_t' } } })] }, {}, 'v1.30'), 'seLinuxOptions (container "a" set forbidden securityContext.seLinuxOptions: type "container_engine_t")');
    assert.equal(judge('baseline', { containers: [c('a', { securityContext: { seccompProfile: { type: 'Unconfined' } } })] }), 'seccompProfile (container "a" must not set securityContext.seccompProfile.type to "Unconfined")');
    // Before v1.19 the annotations are judged instead.
    assert.equal(judge('baseline', { containers: [c('a')] }, { annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } }, 'v1.18'), 'seccompProfile (forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined")');
    assert.equal(judge('baseline', { containers: [c('a', { securityContext: { procMount: 'Unmasked' } })], initContainers: [c('i', { securityContext: { procMount: 'Default' } })] }), 'procMount (container "a" must not set securityContext.procMount to "Unmasked")');
    assert.equal(judge('baseline', { securityContext: { windowsOptions: { hostProcess: true } }, containers: [c('a', { securityContext: { windowsOptions: { hostProcess: true } } })] }), 'hostProcess (pod and container "a" must not set securityContext.windowsOptions.hostProcess=true)');
  });

  test('restricted: Windows pods skip the Linux-only checks from v1.25; containers of every kind are judged', () => {
    const windows = { os: { name: 'windows' }, securityContext: { runAsNonRoot: true }, containers: [c('a')] };
    assert.equal(judge('restricted', windows), '');
    assert.match(judge('restricted', windows, {}, 'v1.24'), /^allowPrivilegeEscalation != false/);
    assert.equal(
      judge('restricted', { securityContext: { runAsNonRoot: false, seccompProfile: { type: 'RuntimeDefault' } }, initContainers: [c('i')], containers: [c('a')], ephemeralContainers: [c('e', { securityContext: { runAsNonRoot: false } })] }),
      'allowPrivilegeEscalation != false (containers "i", "a", "e" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (containers "i", "a", "e" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod and container "e" must not set securityContext.runAsNonRoot=false)',
    );
  });

  test('namespace policies from labels', () => {
    const { policy, errors } = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.29' });
    assert.deepEqual(errors, []);
    assert.deepEqual(policy.warn, { level: 'restricted', version: { latest: false, minor: 29 } });
    assert.deepEqual(policy.audit, { level: 'privileged', version: { latest: true } });
    // Bad levels fail closed for enforce, open for audit and warn.
    const bad = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'x', 'pod-security.kubernetes.io/audit': 'y' });
    assert.equal(bad.policy.enforce.level, 'restricted');
    assert.equal(bad.policy.audit.level, 'privileged');
    assert.equal(bad.errors.length, 2);
  });
});
