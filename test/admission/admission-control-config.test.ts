/**
 * --admission-control-config-file: the AdmissionConfiguration and the plugin configurations it
 * carries (PodSecurityConfiguration, ResourceQuotaConfiguration), their start-up errors in
 * kube-apiserver's words (k8s.io/apiserver/pkg/admission/config.go and plugins.go,
 * k8s.io/pod-security-admission/admission/api, the resourcequota plugin's config.go, 1.34), and a
 * server run with one: default levels, exemptions with their audit annotation, limited resources.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { ApiError } from '../../src/api/errors.ts';
import { systemContext } from '../../src/api/request-context.ts';
import type { AdmissionAttributes } from '../../src/admission/attributes.ts';
import { DEFAULT_CONFIGURATION, loadPodSecurityConfiguration } from '../../src/admission/builtin/pod-security/configuration.ts';
import { checkRequest } from '../../src/admission/builtin/resource-quota/admission.ts';
import { loadResourceQuotaConfiguration, type LimitedResource } from '../../src/admission/builtin/resource-quota/configuration.ts';
import { podEvaluator, pvcEvaluator } from '../../src/admission/builtin/resource-quota/evaluators.ts';
import { AdmissionConfigError } from '../../src/admission/config/errors.ts';
import { pluginConfigurationFor, readAdmissionConfiguration } from '../../src/admission/config/admission-configuration.ts';
import { loadConfig } from '../../src/config.ts';
import { StartupError } from '../../src/startup-error.ts';
import { assertStatus, create, createNamespace, eventually, uniqueName } from '../helpers/fixtures.ts';
import type { Reply } from '../helpers/http.ts';
import { auditAnnotationsOf } from '../helpers/audit-log.ts';
import { serveFile, startTestServer } from '../helpers/server.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-admission-config-'));
let files = 0;
/** Writes a file in this test's directory (or a subdirectory) and returns its path. */
function write(text: string, name = `file-${files++}.yaml`): string {
  const file = path.join(dir, name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** Asserts that `fn` throws a start-up error with exactly `message`. */
function throwsStartup(fn: () => unknown, message: string): void {
  assert.throws(fn, (err: Error) => {
    assert.ok(err instanceof AdmissionConfigError && err instanceof StartupError, `${err.name}: ${err.message}`);
    assert.equal(err.message, message);
    return true;
  });
}

describe('the AdmissionConfiguration file', () => {
  test('the flag, also from the environment, names the file; no file is no configuration', () => {
    assert.equal(loadConfig(['--admission-control-config-file=/etc/admission.yaml'], {}).admissionControlConfigFile, '/etc/admission.yaml');
    assert.equal(loadConfig([], { ADMISSION_CONTROL_CONFIG_FILE: '/etc/a.yaml' }).admissionControlConfigFile, '/etc/a.yaml');
    assert.deepEqual(readAdmissionConfiguration(''), { plugins: [] });
  });

  test('v1 and v1alpha1, YAML or JSON: paths are resolved against the file, embedded configuration wins, unknown fields are ignored', () => {
    const file = write(
      [
        'apiVersion: apiserver.config.k8s.io/v1',
        'kind: AdmissionConfiguration',
        'extra: ignored',
        'plugins:',
        '- name: PodSecurity',
        '  path: sub/pod-security.yaml',
        '- name: ResourceQuota',
        '  path: /abs/rq.yaml',
        '  configuration: {apiVersion: apiserver.config.k8s.io/v1, kind: ResourceQuotaConfiguration}',
        '- name: PodSecurity',
        '  path: ignored.yaml',
        '- name: LimitRanger',
      ].join('\n'),
      'nested/admission.yaml',
    );
    const config = readAdmissionConfiguration(file);
    assert.deepEqual(config.plugins, [
      { name: 'PodSecurity', path: path.join(dir, 'nested/sub/pod-security.yaml') },
      { name: 'ResourceQuota', path: '/abs/rq.yaml', configuration: { apiVersion: 'apiserver.config.k8s.io/v1', kind: 'ResourceQuotaConfiguration' } },
      { name: 'PodSecurity', path: path.join(dir, 'nested/ignored.yaml') },
      { name: 'LimitRanger' },
    ]);
    // The first entry of a name counts; the embedded object is handed over as JSON.
    write('kind: PodSecurityConfiguration\n', 'nested/sub/pod-security.yaml');
    assert.equal(pluginConfigurationFor(config, 'PodSecurity'), 'kind: PodSecurityConfiguration\n');
    assert.equal(pluginConfigurationFor(config, 'ResourceQuota'), '{"apiVersion":"apiserver.config.k8s.io/v1","kind":"ResourceQuotaConfiguration"}');
    assert.equal(pluginConfigurationFor(config, 'LimitRanger'), undefined);
    assert.equal(pluginConfigurationFor(config, 'NamespaceLifecycle'), undefined);

    const alpha = readAdmissionConfiguration(write('{"apiVersion": "apiserver.k8s.io/v1alpha1", "kind": "AdmissionConfiguration", "plugins": [{"name": "Foo", "configuration": {"foo": "bar"}}]}'));
    assert.equal(pluginConfigurationFor(alpha, 'Foo'), '{"foo":"bar"}');
    // The unversioned files of ImagePolicyWebhook and PodNodeSelector configure only those plugins, which this server has not.
    assert.deepEqual(readAdmissionConfiguration(write('imagePolicy:\n  kubeConfigFile: /k\n')), { plugins: [] });
  });

  test('an unreadable or undecodable file stops the start in kube-apiserver words', () => {
    const missing = path.join(dir, 'missing.yaml');
    throwsStartup(() => readAdmissionConfiguration(missing), `failed to read plugin config: unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`);
    throwsStartup(() => readAdmissionConfiguration(dir), `failed to read plugin config: unable to read admission control configuration from "${dir}" [read ${dir}: is a directory]`);
    const noKind = 'apiVersion: apiserver.config.k8s.io/v1\nplugins: []\n';
    throwsStartup(() => readAdmissionConfiguration(write(noKind)), `failed to read plugin config: Object 'Kind' is missing in '${noKind}'`);
    const noVersion = '{"kind": "AdmissionConfiguration"}';
    throwsStartup(() => readAdmissionConfiguration(write(noVersion)), `failed to read plugin config: Object 'apiVersion' is missing in '${noVersion}'`);
    throwsStartup(
      () => readAdmissionConfiguration(write('apiVersion: apiserver.config.k8s.io/v1beta1\nkind: AdmissionConfiguration\n')),
      'failed to read plugin config: no kind "AdmissionConfiguration" is registered for version "apiserver.config.k8s.io/v1beta1" in scheme "k8s.io/apiserver/pkg/server/options/admission.go:53"',
    );
    throwsStartup(
      () => readAdmissionConfiguration(write('apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins: PodSecurity\n')),
      'failed to read plugin config: json: cannot unmarshal string into Go struct field AdmissionConfiguration.plugins of type []v1.AdmissionPluginConfiguration',
    );
    throwsStartup(
      () => readAdmissionConfiguration(write('apiVersion: apiserver.k8s.io/v1alpha1\nkind: AdmissionConfiguration\nplugins:\n- name: [PodSecurity]\n')),
      'failed to read plugin config: json: cannot unmarshal array into Go struct field AdmissionPluginConfiguration.plugins.name of type string',
    );
    throwsStartup(() => readAdmissionConfiguration(write('- a\n- b\n')), 'failed to read plugin config: couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }');
    assert.throws(() => readAdmissionConfiguration(write('kind: [\n')), (err: Error) => err instanceof AdmissionConfigError && /^failed to read plugin config: error converting YAML to JSON: yaml: /.test(err.message));
  });

  test('a plugin file that cannot be read stops the start', () => {
    const config = readAdmissionConfiguration(write('apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: nowhere.yaml\n'));
    const missing = path.join(dir, 'nowhere.yaml');
    throwsStartup(() => pluginConfigurationFor(config, 'PodSecurity'), `Couldn't open admission plugin configuration ${missing}: open ${missing}: no such file or directory`);
  });
});

describe('PodSecurityConfiguration', () => {
  const PSA = 'pod-security.admission.config.k8s.io';
  const lv = (level: string, version = 'latest') => ({ level, version: version === 'latest' ? { latest: true } : { latest: false, minor: Number(version.split('.')[1]) } });

  test('none or empty is the default: everything privileged, nothing exempt', () => {
    assert.equal(loadPodSecurityConfiguration(undefined), DEFAULT_CONFIGURATION);
    assert.equal(loadPodSecurityConfiguration(''), DEFAULT_CONFIGURATION);
  });

  test('v1, v1beta1 and v1alpha1: unset levels are privileged, unset versions latest', () => {
    for (const v of ['v1', 'v1beta1', 'v1alpha1']) {
      const config = loadPodSecurityConfiguration(
        `apiVersion: ${PSA}/${v}\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: baseline\n  enforce-version: v1.7\n  warn: restricted\nexemptions:\n  usernames: [alice, bob]\n  namespaces: [kube-system]\n  runtimeClasses: [special]\n`,
      );
      assert.deepEqual(config, {
        defaults: { enforce: lv('baseline', 'v1.7'), audit: lv('privileged'), warn: lv('restricted') },
        exemptions: { usernames: ['alice', 'bob'], namespaces: ['kube-system'], runtimeClasses: ['special'] },
      });
    }
    assert.deepEqual(loadPodSecurityConfiguration(`{"apiVersion":"${PSA}/v1","kind":"PodSecurityConfiguration"}`), DEFAULT_CONFIGURATION);
  });

  test('what cannot be decoded: the plugin cannot be built', () => {
    const failed = (why: string) => `couldn't init admission plugin "PodSecurity": ${why}`;
    throwsStartup(() => loadPodSecurityConfiguration('{"kind":"PodSecurityConfiguration"}'), failed(`Object 'apiVersion' is missing in '{"kind":"PodSecurityConfiguration"}'`));
    throwsStartup(() => loadPodSecurityConfiguration(`{"apiVersion":"${PSA}/v1"}`), failed(`Object 'Kind' is missing in '{"apiVersion":"${PSA}/v1"}'`));
    throwsStartup(
      () => loadPodSecurityConfiguration(`{"apiVersion":"${PSA}/v99","kind":"PodSecurityConfiguration"}`),
      failed(`no kind "PodSecurityConfiguration" is registered for version "${PSA}/v99" in scheme "k8s.io/pod-security-admission/admission/api/scheme/scheme.go:31"`),
    );
    // Decoding is strict.
    throwsStartup(
      () => loadPodSecurityConfiguration(`{"apiVersion":"${PSA}/v1","kind":"PodSecurityConfiguration","deflaults":{"enforce":"baseline"},"exemptions":{"users":[]}}`),
      failed('strict decoding error: unknown field "deflaults", unknown field "exemptions.users"'),
    );
    throwsStartup(
      () => loadPodSecurityConfiguration(`{"apiVersion":"${PSA}/v1beta1","kind":"PodSecurityConfiguration","defaults":{"enforce":5}}`),
      failed('json: cannot unmarshal number into Go struct field PodSecurityDefaults.defaults.enforce of type string'),
    );
    throwsStartup(
      () => loadPodSecurityConfiguration(`{"apiVersion":"${PSA}/v1","kind":"PodSecurityConfiguration","exemptions":{"namespaces":"kube-system"}}`),
      failed('json: cannot unmarshal string into Go struct field PodSecurityExemptions.exemptions.namespaces of type []string'),
    );
  });

  test('bad defaults or exemptions: the plugin cannot be initialized', () => {
    const doc = (body: string) => `apiVersion: ${PSA}/v1\nkind: PodSecurityConfiguration\n${body}`;
    throwsStartup(
      () => loadPodSecurityConfiguration(doc('defaults:\n  enforce: baslein\n')),
      'failed to initialize admission plugin "PodSecurity": PodSecurity configuration error: Enforce.Level: must be one of privileged, baseline, restricted',
    );
    throwsStartup(
      () => loadPodSecurityConfiguration(doc('defaults:\n  enforce-version: v.122\n  audit: lorum\n  warn-version: "1.2"\n')),
      'failed to initialize admission plugin "PodSecurity": PodSecurity configuration error: [Enforce.Version: must be "latest" or "v1.x", Audit.Level: must be one of privileged, baseline, restricted, Warn.Version: must be "latest" or "v1.x"]',
    );
    throwsStartup(
      () => loadPodSecurityConfiguration(doc('exemptions:\n  namespaces: ["", "Bad_NS", testing, testing]\n  runtimeClasses: ["a..b", rc, rc]\n  usernames: ["", alice, alice]\n')),
      'failed to initialize admission plugin "PodSecurity": PodSecurity invalid: [' +
        [
          `exemptions.namespaces[0]: Invalid value: "": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
          `exemptions.namespaces[1]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
          'exemptions.namespaces[3]: Duplicate value: "testing"',
          `exemptions.runtimeClasses[0]: Invalid value: "a..b": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
          'exemptions.runtimeClasses[2]: Duplicate value: "rc"',
          'exemptions.usernames[0]: Required value',
          'exemptions.usernames[2]: Duplicate value: "alice"',
        ].join(', ') +
        ']',
    );
  });
});

describe('ResourceQuota configuration and resources limited by default', () => {
  const LIMITED_YAML = [
    'limitedResources:',
    '- apiGroup: ""',
    '  resource: persistentvolumeclaims',
    '  matchContains:',
    '  - .storageclass.storage.k8s.io/requests.storage',
    '- resource: pods',
    '  matchScopes:',
    '  - scopeName: PriorityClass',
    '    operator: In',
    '    values: [cluster-services]',
  ].join('\n');
  const LIMITED: LimitedResource[] = [
    { apiGroup: '', resource: 'persistentvolumeclaims', matchContains: ['.storageclass.storage.k8s.io/requests.storage'], matchScopes: [] },
    { apiGroup: '', resource: 'pods', matchContains: [], matchScopes: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] },
  ];

  test('ResourceQuotaConfiguration (v1) and Configuration (v1beta1, v1alpha1); none limits nothing', () => {
    assert.deepEqual(loadResourceQuotaConfiguration(undefined), { limitedResources: [] });
    assert.deepEqual(loadResourceQuotaConfiguration(`kind: ResourceQuotaConfiguration\napiVersion: apiserver.config.k8s.io/v1\n${LIMITED_YAML}\n`), { limitedResources: LIMITED });
    for (const v of ['v1beta1', 'v1alpha1']) {
      assert.deepEqual(loadResourceQuotaConfiguration(`kind: Configuration\napiVersion: resourcequota.admission.k8s.io/${v}\nunknown: ignored\n${LIMITED_YAML}\n`), { limitedResources: LIMITED });
    }
  });

  test('what cannot be decoded or names no resource: the plugin cannot be built', () => {
    const failed = (why: string) => `couldn't init admission plugin "ResourceQuota": ${why}`;
    // An empty file is a document without a kind.
    throwsStartup(() => loadResourceQuotaConfiguration(''), failed(`Object 'Kind' is missing in ''`));
    throwsStartup(() => loadResourceQuotaConfiguration('{"kind":"Unknown","apiVersion":"v1"}'), failed('no kind "Unknown" is registered for version "v1" in scheme "k8s.io/apiserver/pkg/admission/plugin/resourcequota/config.go:31"'));
    throwsStartup(
      () => loadResourceQuotaConfiguration('kind: ResourceQuotaConfiguration\napiVersion: apiserver.config.k8s.io/v1\nlimitedResources:\n- apiGroup: ""\n- resource: pods\n- matchContains: [x]\n'),
      failed('[limitedResources[0].resource: Required value, limitedResources[2].resource: Required value]'),
    );
    throwsStartup(
      () => loadResourceQuotaConfiguration('kind: ResourceQuotaConfiguration\napiVersion: apiserver.config.k8s.io/v1\nlimitedResources:\n- resource: pods\n  matchScopes:\n  - scopeName: 1\n'),
      failed('json: cannot unmarshal number into Go struct field ScopedResourceSelectorRequirement.limitedResources.matchScopes.scopeName of type v1.ResourceQuotaScope'),
    );
  });

  const attrs = (resource: string, kind: string, object: Record<string, unknown>): AdmissionAttributes =>
    ({
      operation: 'CREATE',
      kind: { group: '', version: 'v1', kind },
      resource: { group: '', version: 'v1', resource },
      subresource: '',
      name: (object.metadata as { name: string }).name,
      namespace: 'ns',
      object,
      user: { name: 'alice', groups: [] },
      dryRun: false,
      context: systemContext(),
    }) as never;
  const claim = (storageClassName?: string) => ({ metadata: { name: 'c' }, spec: { resources: { requests: { storage: '1Gi' } }, ...(storageClassName ? { storageClassName } : {}) } });
  const pod = (priorityClassName?: string) => ({ metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'x' }], ...(priorityClassName ? { priorityClassName } : {}) } });
  const quota = (name: string, hard: Record<string, string>, spec: Record<string, unknown> = {}): Parameters<typeof checkRequest>[0][number] =>
    ({
      metadata: { name, namespace: 'ns', uid: name, resourceVersion: '1' },
      spec: { hard, ...spec },
      status: { hard, used: Object.fromEntries(Object.keys(hard).map((k) => [k, '0'])) },
    }) as never;
  const refusal = (fn: () => unknown, code: number, reason: string | undefined, message: string) =>
    assert.throws(fn, (err: ApiError) => err instanceof ApiError && err.code === code && err.status.reason === reason && err.message === message);

  test('a limited resource needs a quota that covers it', () => {
    const gold = attrs('persistentvolumeclaims', 'PersistentVolumeClaim', claim('gold'));
    refusal(() => checkRequest([], gold, pvcEvaluator, LIMITED), 403, 'Forbidden', 'persistentvolumeclaims "c" is forbidden: insufficient quota to consume: gold.storageclass.storage.k8s.io/requests.storage');
    // A quota on something else does not cover it; one on the class's storage does, and is charged.
    refusal(() => checkRequest([quota('other', { 'requests.storage': '10Gi' })], gold, pvcEvaluator, LIMITED), 403, 'Forbidden', 'persistentvolumeclaims "c" is forbidden: insufficient quota to consume: gold.storageclass.storage.k8s.io/requests.storage');
    const [charged] = checkRequest([quota('gold', { 'gold.storageclass.storage.k8s.io/requests.storage': '10Gi' })], gold, pvcEvaluator, LIMITED);
    assert.deepEqual(charged!.status!.used, { 'gold.storageclass.storage.k8s.io/requests.storage': '1Gi' });
    // Claims that use no limited resource, and other kinds, are free.
    assert.deepEqual(checkRequest([], attrs('persistentvolumeclaims', 'PersistentVolumeClaim', claim()), pvcEvaluator, LIMITED), []);
    assert.deepEqual(checkRequest([], attrs('pods', 'Pod', pod()), podEvaluator, LIMITED), []);
  });

  test('an object in a limited scope needs a quota whose scope covers it (a 500 without reason, as upstream)', () => {
    const critical = attrs('pods', 'Pod', pod('cluster-services'));
    refusal(() => checkRequest([], critical, podEvaluator, LIMITED), 500, undefined, 'insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]');
    refusal(() => checkRequest([quota('plain', { pods: '10' })], critical, podEvaluator, LIMITED), 500, undefined, 'insufficient quota to match these scopes: [{PriorityClass In [cluster-services]}]');
    const scoped = quota('critical', { pods: '10' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['cluster-services'] }] } });
    const [charged] = checkRequest([scoped], critical, podEvaluator, LIMITED);
    assert.deepEqual(charged!.status!.used, { pods: '1' });
  });
});

describe('a server started with --admission-control-config-file', () => {
  const exempt = uniqueName('exempt');
  const auditLog = path.join(dir, 'audit.log');
  const auditPolicy = write('apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n', 'audit-policy.yaml');
  write(
    'apiVersion: apiserver.config.k8s.io/v1\nkind: ResourceQuotaConfiguration\nlimitedResources:\n- resource: persistentvolumeclaims\n  matchContains: [.storageclass.storage.k8s.io/requests.storage]\n',
    'server/quota.yaml',
  );
  const admissionFile = write(
    JSON.stringify({
      apiVersion: 'apiserver.config.k8s.io/v1',
      kind: 'AdmissionConfiguration',
      plugins: [
        {
          name: 'PodSecurity',
          configuration: {
            apiVersion: 'pod-security.admission.config.k8s.io/v1',
            kind: 'PodSecurityConfiguration',
            defaults: { enforce: 'baseline', audit: 'restricted' },
            exemptions: { usernames: ['ci-bot'], namespaces: [exempt], runtimeClasses: ['kata'] },
          },
        },
        { name: 'ResourceQuota', path: 'quota.yaml' },
      ],
    }),
    'server/admission.json',
  );
  // Pods are judged by PodSecurity and quota alone here.
  const t = serveFile([`--admission-control-config-file=${admissionFile}`, '--disable-admission-plugins=ServiceAccount,LimitRanger', `--audit-policy-file=${auditPolicy}`, `--audit-log-path=${auditLog}`]);

  const privileged = (name: string, spec: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { containers: [{ name: 'c', image: 'nginx:1.27', securityContext: { privileged: true } }], ...spec },
  });
  const auditAnnotations = (res: Reply) => auditAnnotationsOf(auditLog, res);
  const psa = (annotations: Record<string, string>) => Object.fromEntries(Object.entries(annotations).filter(([k]) => k.startsWith('pod-security.kubernetes.io/')));
  const BASELINE_REFUSAL = 'violates PodSecurity "baseline:latest": privileged (container "c" must not set securityContext.privileged=true)';

  test('the default levels judge namespaces without labels; labels still win', async () => {
    const res = await t.api.post(`/api/v1/namespaces/${t.ns}/pods`, privileged('priv'));
    assertStatus(res, 403, 'Forbidden', `pods "priv" is forbidden: ${BASELINE_REFUSAL}`);
    const annotations = psa(await auditAnnotations(res));
    assert.equal(annotations['pod-security.kubernetes.io/enforce-policy'], 'baseline:latest');
    assert.match(annotations['pod-security.kubernetes.io/audit-violations'] ?? '', /^would violate PodSecurity "restricted:latest": privileged \(container "c" must not set securityContext.privileged=true\), allowPrivilegeEscalation != false/);
    const open = uniqueName('open');
    await create(t.api, '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: open, labels: { 'pod-security.kubernetes.io/enforce': 'privileged', 'pod-security.kubernetes.io/audit': 'privileged' } } });
    await create(t.api, `/api/v1/namespaces/${open}/pods`, privileged('priv'));
  });

  test('exempt namespaces, users and runtime classes are not judged; the audit event says why', async () => {
    // Creating the exempt namespace with a policy of its own draws no warning: the request is in no namespace.
    const created = await t.api.post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: exempt, labels: { 'pod-security.kubernetes.io/warn': 'restricted' } } });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.warning, undefined);

    const inExempt = await t.api.post(`/api/v1/namespaces/${exempt}/pods`, privileged('priv'));
    assert.equal(inExempt.status, 201, inExempt.text);
    assert.deepEqual(psa(await auditAnnotations(inExempt)), { 'pod-security.kubernetes.io/exempt': 'namespace' });

    const byBot = await t.api.post(`/api/v1/namespaces/${t.ns}/pods`, privileged('by-bot'), { 'Impersonate-User': 'ci-bot', 'Impersonate-Group': 'system:masters' });
    assert.equal(byBot.status, 201, byBot.text);
    assert.deepEqual(psa(await auditAnnotations(byBot)), { 'pod-security.kubernetes.io/exempt': 'user' });
    // Another user is judged.
    const byOther = await t.api.post(`/api/v1/namespaces/${t.ns}/pods`, privileged('by-other'), { 'Impersonate-User': 'ci-bot2', 'Impersonate-Group': 'system:masters' });
    assertStatus(byOther, 403, 'Forbidden', `pods "by-other" is forbidden: ${BASELINE_REFUSAL}`);

    const kata = await t.api.post(`/api/v1/namespaces/${t.ns}/pods`, privileged('kata', { runtimeClassName: 'kata' }));
    assert.equal(kata.status, 201, kata.text);
    assert.deepEqual(psa(await auditAnnotations(kata)), { 'pod-security.kubernetes.io/exempt': 'runtimeClass' });
  });

  test('a stricter level on an exempt namespace is not checked against its pods, only warned about', async () => {
    const ns = `/api/v1/namespaces/${exempt}`;
    if ((await t.api.get(ns)).status === 404) await createNamespace(t.api, exempt);
    await create(t.api, `${ns}/pods`, privileged('priv-2'));
    const current = (await t.api.get(ns)).json;
    const res = await t.api.put(ns, { ...current, metadata: { ...current.metadata, labels: { ...current.metadata.labels, 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/warn': 'restricted' } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.headers.warning, `299 - "namespace \\"${exempt}\\" is exempt from Pod Security, and the policy (enforce=restricted:latest, warn=restricted:latest) will be ignored"`);
    // The same change on a namespace that is not exempt checks its pods.
    const other = await createNamespace(t.api, uniqueName('judged'));
    await t.api.post(`/api/v1/namespaces/${other}/pods`, privileged('priv'), { 'Impersonate-User': 'ci-bot', 'Impersonate-Group': 'system:masters' });
    const judged = await t.api.patch(`/api/v1/namespaces/${other}`, { metadata: { labels: { 'pod-security.kubernetes.io/enforce': 'restricted' } } }, 'application/merge-patch+json');
    assert.equal(judged.status, 200, judged.text);
    assert.match(String(judged.headers.warning), /existing pods in namespace .* violate the new PodSecurity enforce level \\"restricted:latest\\"/);
  });

  test('ResourceQuota from a file beside the configuration: a limited resource needs a covering quota', async () => {
    const claims = `/api/v1/namespaces/${t.ns}/persistentvolumeclaims`;
    const claim = (name: string, storageClassName?: string) => ({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...(storageClassName ? { storageClassName } : {}) },
    });
    assertStatus(await t.api.post(claims, claim('gold-1', 'gold')), 403, 'Forbidden', 'persistentvolumeclaims "gold-1" is forbidden: insufficient quota to consume: gold.storageclass.storage.k8s.io/requests.storage');
    await create(t.api, claims, claim('classless'));
    await create(t.api, `/api/v1/namespaces/${t.ns}/resourcequotas`, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'gold' }, spec: { hard: { 'gold.storageclass.storage.k8s.io/requests.storage': '10Gi' } } });
    const res = await eventually(async () => {
      const r = await t.api.post(claims, claim('gold-2', 'gold'));
      return r.status === 201 ? r : undefined;
    }, 'the quota to cover the claim');
    assert.equal(res.status, 201);
  });
});

describe('start-up with a bad configuration', () => {
  test('a missing file, or a bad configuration of an enabled plugin, stops the start; a disabled plugin\'s is not read', async () => {
    const missing = path.join(dir, 'absent.yaml');
    await assert.rejects(startTestServer([`--admission-control-config-file=${missing}`]), (err: Error) => {
      assert.ok(err instanceof StartupError);
      assert.equal(err.message, `failed to read plugin config: unable to read admission control configuration from "${missing}" [open ${missing}: no such file or directory]`);
      return true;
    });
    const bad = write(
      'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  configuration:\n    apiVersion: pod-security.admission.config.k8s.io/v1\n    kind: PodSecurityConfiguration\n    defaults: {enforce: strict}\n',
    );
    await assert.rejects(startTestServer([`--admission-control-config-file=${bad}`]), {
      message: 'failed to initialize admission plugin "PodSecurity": PodSecurity configuration error: Enforce.Level: must be one of privileged, baseline, restricted',
    });
    const srv = await startTestServer([`--admission-control-config-file=${bad}`, '--disable-admission-plugins=PodSecurity']);
    await srv.stop();
  });
});
