/**
 * ValidatingAdmissionPolicy with the real kubectl, as on Kubernetes 1.34: a small-ConfigMap policy
 * (too many data keys is refused: kubectl prints `The configmaps "x" is invalid: : ValidatingAdmissionPolicy …`),
 * a required-label policy whose label comes from a ConfigMap param, a Forbidden reason
 * (`Error from server (Forbidden): …`), Warn (`Warning: …`), Audit (the audit log's annotation),
 * and the status the type-checking controller writes, read back with kubectl.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it, before } from 'node:test';
import yaml from 'js-yaml';
import { KUBECTL_VERSIONS, skipReason, type Kubectl, type KubectlResult } from '../helpers/kubectl.ts';
import { ok, useServer } from './setup.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-kubectl-policy-'));
const auditLog = path.join(dir, 'audit.log');
writeFileSync(path.join(dir, 'audit-policy.yaml'), 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  resources:\n  - group: ""\n    resources: ["configmaps"]\n- level: None\n');
const server = useServer([`--audit-policy-file=${path.join(dir, 'audit-policy.yaml')}`, `--audit-log-path=${auditLog}`]);

const toYaml = (...docs: unknown[]) => docs.map((d) => yaml.dump(d)).join('---\n');

/** Runs `args` (with `input`) until `done` holds for the result, 5 s at most; returns the last result. */
async function until(k: Kubectl, args: string[], input: string | undefined, done: (r: KubectlResult) => boolean): Promise<KubectlResult> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const r = await k.run(args, input === undefined ? {} : { input });
    if (done(r) || Date.now() > deadline) return r;
    await sleep(50);
  }
}

function policy(name: string, ns: string, spec: Record<string, unknown>) {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingAdmissionPolicy',
    metadata: { name },
    spec: {
      failurePolicy: 'Fail',
      matchConstraints: {
        resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'] }],
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': ns } },
      },
      ...spec,
    },
  };
}

function binding(name: string, policyName: string, spec: Record<string, unknown> = {}) {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec: { policyName, validationActions: ['Deny'], ...spec } };
}

const configMap = (name: string, data: Record<string, string>, labels: Record<string, string> = {}) => toYaml({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });

for (const version of KUBECTL_VERSIONS) {
  describe(`kubectl ${version}: ValidatingAdmissionPolicy`, { skip: skipReason(version) }, () => {
    const v = version.replace('.', '');
    const ns = `policy-e2e-${v}`;
    const k = () => server().kubectl(version);

    before(async () => {
      ok(await k().run(['create', 'namespace', ns]));
    });

    it('a small-ConfigMap policy: too many data keys is refused with the Invalid text kubectl prints', async () => {
      const p = `small-configmaps-${v}`;
      const applied = ok(await k().run(['apply', '-f', '-'], { input: toYaml(policy(p, ns, { validations: [{ expression: 'size(object.data) <= 2', message: 'a ConfigMap may hold at most 2 keys' }] }), binding(`${p}-binding`, p)) }));
      assert.equal(applied, `validatingadmissionpolicy.admissionregistration.k8s.io/${p} created\nvalidatingadmissionpolicybinding.admissionregistration.k8s.io/${p}-binding created\n`);
      const big = configMap('big', { a: '1', b: '2', c: '3' });
      const refused = await until(k(), ['create', '-n', ns, '-f', '-'], big, (r) => r.code !== 0);
      assert.equal(refused.code, 1, refused.stderr);
      assert.equal(refused.stderr, `The configmaps "big" is invalid: : ValidatingAdmissionPolicy '${p}' with binding '${p}-binding' denied request: a ConfigMap may hold at most 2 keys\n`);
      assert.equal(ok(await k().run(['create', '-n', ns, '-f', '-'], { input: configMap('small', { a: '1', b: '2' }) })), 'configmap/small created\n');
      // Growing it by an update is refused too.
      const grown = await k().run(['patch', '-n', ns, 'configmap', 'small', '--type=merge', '-p', '{"data":{"c":"3"}}']);
      assert.equal(grown.code, 1);
      assert.match(grown.stderr, new RegExp(`^The configmaps "small" is invalid: : ValidatingAdmissionPolicy '${p}' with binding '${p}-binding' denied request: a ConfigMap may hold at most 2 keys\\n$`));
      // The type-checking controller writes the policy's status.
      const observed = await until(k(), ['get', 'validatingadmissionpolicy', p, '-o', 'jsonpath={.status.observedGeneration}'], undefined, (r) => r.stdout === '1');
      assert.equal(observed.stdout, '1');
      ok(await k().run(['delete', 'validatingadmissionpolicybinding', `${p}-binding`]));
    });

    it('a required-label policy with params from a ConfigMap, and a Forbidden reason', async () => {
      const p = `required-label-${v}`;
      ok(await k().run(['create', 'configmap', 'required-labels', '-n', ns, '--from-literal=label=team']));
      ok(
        await k().run(['apply', '-f', '-'], {
          input: toYaml(
            policy(p, ns, {
              paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
              matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }], objectSelector: { matchLabels: { checked: 'yes' } } },
              validations: [{ expression: 'has(object.metadata.labels) && params.data.label in object.metadata.labels', messageExpression: "'missing required label ' + params.data.label", reason: 'Forbidden' }],
            }),
            binding(`${p}-binding`, p, { paramRef: { name: 'required-labels', parameterNotFoundAction: 'Deny' } }),
          ),
        }),
      );
      const unlabelled = configMap('unlabelled', { a: '1' }, { checked: 'yes' });
      const refused = await until(k(), ['create', '-n', ns, '-f', '-'], unlabelled, (r) => r.code !== 0);
      assert.equal(refused.stderr, `Error from server (Forbidden): error when creating "STDIN": configmaps "unlabelled" is forbidden: ValidatingAdmissionPolicy '${p}' with binding '${p}-binding' denied request: missing required label team\n`);
      assert.equal(ok(await k().run(['create', '-n', ns, '-f', '-'], { input: configMap('labelled', { a: '1' }, { checked: 'yes', team: 'blue' }) })), 'configmap/labelled created\n');
      ok(await k().run(['delete', 'validatingadmissionpolicybinding', `${p}-binding`]));
    });

    it('Warn: the request succeeds and kubectl prints the warning', async () => {
      const p = `warn-${v}`;
      ok(await k().run(['apply', '-f', '-'], { input: toYaml(policy(p, ns, { validations: [{ expression: "!object.metadata.name.startsWith('tmp-')", message: 'temporary names are discouraged' }] }), binding(`${p}-binding`, p, { validationActions: ['Warn'] })) }));
      let n = 0;
      let created: KubectlResult;
      for (;;) {
        created = await k().run(['create', '-n', ns, '-f', '-'], { input: configMap(`tmp-${n++}`, {}) });
        if (created.stderr !== '' || n > 50) break;
        await sleep(50);
      }
      assert.equal(created.code, 0, created.stderr);
      assert.match(created.stdout, /^configmap\/tmp-\d+ created\n$/);
      assert.equal(created.stderr, `Warning: Validation failed for ValidatingAdmissionPolicy '${p}' with binding '${p}-binding': temporary names are discouraged\n`);
      ok(await k().run(['delete', 'validatingadmissionpolicybinding', `${p}-binding`]));
    });

    it('Audit: the request succeeds and the audit event carries the validation failure', async () => {
      const p = `audit-${v}`;
      ok(await k().run(['apply', '-f', '-'], { input: toYaml(policy(p, ns, { validations: [{ expression: "!('secret' in object.data)", message: 'no secrets in ConfigMaps' }] }), binding(`${p}-binding`, p, { validationActions: ['Audit'] })) }));
      const expected = `[{"message":"no secrets in ConfigMaps","policy":"${p}","binding":"${p}-binding","expressionIndex":0,"validationActions":["Audit"]}]`;
      const deadline = Date.now() + 5000;
      let found: any;
      for (let n = 0; !found && Date.now() < deadline; n++) {
        const name = `audited-${n}`;
        assert.equal(ok(await k().run(['create', '-n', ns, '-f', '-'], { input: configMap(name, { secret: 'x' }) })), `configmap/${name} created\n`);
        await sleep(50);
        found = readFileSync(auditLog, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
          .find((e) => e.stage === 'ResponseComplete' && e.objectRef?.name === name && e.objectRef?.namespace === ns && e.annotations?.['validation.policy.admission.k8s.io/validation_failure']);
      }
      assert.ok(found, 'no audit event with the validation failure annotation');
      assert.equal(found.annotations['validation.policy.admission.k8s.io/validation_failure'], expected);
      ok(await k().run(['delete', 'validatingadmissionpolicybinding', `${p}-binding`]));
    });
  });
}
