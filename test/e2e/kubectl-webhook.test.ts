/**
 * kubectl against the server with admission webhooks: a real HTTPS webhook that refuses one
 * ConfigMap and another that adds a label, installed with kubectl; kubectl prints upstream's texts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KUBECTL_VERSIONS, parseTable, skipReason, type Kubectl } from '../helpers/kubectl.ts';
import { startAdmissionWebhook, type FakeAdmissionWebhook } from '../admission/webhook-helper.ts';
import { namespaceFor, ok, useServer } from './setup.ts';

const e2e = useServer();
let fake: FakeAdmissionWebhook;
before(async () => {
  fake = await startAdmissionWebhook('kubectl-webhook');
  // Refuses ConfigMaps named `forbidden-*`, with a warning for the rest.
  fake.on('/validate', (review) =>
    String(review.request.name).startsWith('forbidden')
      ? { allowed: false, status: { code: 403, reason: 'Forbidden', message: 'this name is not allowed' } }
      : { allowed: true, warnings: ['checked by the validating webhook'] },
  );
  // Labels every ConfigMap it sees.
  fake.on('/mutate', (review) => ({ allowed: true, patch: [{ op: 'add', path: review.request.object.metadata.labels ? '/metadata/labels/mutated-by' : '/metadata/labels', value: review.request.object.metadata.labels ? 'webhook' : { 'mutated-by': 'webhook' } }] }));
});
after(() => fake?.close());

function manifests(ns: string): string {
  const rules = `    rules:\n    - operations: ["CREATE", "UPDATE"]\n      apiGroups: [""]\n      apiVersions: ["v1"]\n      resources: ["configmaps"]\n    namespaceSelector:\n      matchLabels:\n        kubernetes.io/metadata.name: ${ns}\n    sideEffects: None\n    admissionReviewVersions: ["v1"]\n`;
  return [
    `apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: deny-${ns}\nwebhooks:\n  - name: deny.example.com\n    clientConfig:\n      url: ${fake.url('/validate')}\n      caBundle: ${fake.caBundle}\n${rules}`,
    `apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: label-${ns}\nwebhooks:\n  - name: label.example.com\n    clientConfig:\n      url: ${fake.url('/mutate')}\n      caBundle: ${fake.caBundle}\n${rules}`,
  ].join('---\n');
}

const configMap = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: b\n`;

for (const version of KUBECTL_VERSIONS) {
  describe(`kubectl ${version}: admission webhooks`, { skip: skipReason(version) }, () => {
    const ns = namespaceFor('e2e-webhook', version);
    let k: Kubectl;
    const kn = (args: string[], options?: { input?: string }) => k.run(['-n', ns, ...args], options);

    before(async () => {
      k = e2e().kubectl(version);
      ok(await k.run(['create', 'namespace', ns]));
      const out = ok(await k.run(['apply', '-f', '-'], { input: manifests(ns) }));
      assert.equal(out, `validatingwebhookconfiguration.admissionregistration.k8s.io/deny-${ns} created\nmutatingwebhookconfiguration.admissionregistration.k8s.io/label-${ns} created\n`);
      // The plugins learn of the configurations through a watch: wait until a dry run is labelled.
      const deadline = Date.now() + 10_000;
      for (;;) {
        const r = await kn(['create', '-f', '-', '--dry-run=server', '-o', 'jsonpath={.metadata.labels.mutated-by}'], { input: configMap('probe') });
        if (r.code === 0 && r.stdout === 'webhook') break;
        assert.ok(Date.now() < deadline, `the webhooks were not called: ${r.stderr}${r.stdout}`);
        await new Promise((res) => setTimeout(res, 100));
      }
    });

    it('get lists the configurations with their webhook counts', async () => {
      const rows = parseTable(ok(await k.run(['get', 'validatingwebhookconfigurations', `deny-${ns}`])));
      assert.deepEqual(
        rows.map((r) => [r.NAME, r.WEBHOOKS]),
        [[`deny-${ns}`, '1']],
      );
      const mutating = parseTable(ok(await k.run(['get', 'mutatingwebhookconfigurations', `label-${ns}`])));
      assert.deepEqual(
        mutating.map((r) => [r.NAME, r.WEBHOOKS]),
        [[`label-${ns}`, '1']],
      );
      const stored = JSON.parse(ok(await k.run(['get', 'validatingwebhookconfiguration', `deny-${ns}`, '-o', 'json'])));
      const hook = stored.webhooks[0];
      assert.deepEqual([hook.failurePolicy, hook.matchPolicy, hook.timeoutSeconds, hook.rules[0].scope], ['Fail', 'Equivalent', 10, '*']);
    });

    it('a refused ConfigMap: kubectl prints the webhook’s refusal as upstream words it', async () => {
      const r = await kn(['create', '-f', '-'], { input: configMap('forbidden-one') });
      assert.equal(r.code, 1);
      assert.equal(r.stderr.trim(), 'Error from server (Forbidden): error when creating "STDIN": admission webhook "deny.example.com" denied the request: this name is not allowed');
      const literal = await kn(['create', 'configmap', 'forbidden-two', '--from-literal=a=b']);
      assert.equal(literal.code, 1);
      assert.match(literal.stderr, /admission webhook "deny\.example\.com" denied the request: this name is not allowed/);
      assert.equal((await kn(['get', 'configmap', 'forbidden-one'])).code, 1, 'nothing was stored');
    });

    it('an accepted ConfigMap carries the mutating webhook’s label, and the validating webhook’s warning is shown', async () => {
      const r = await kn(['create', '-f', '-'], { input: configMap('welcome') });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stdout, 'configmap/welcome created\n');
      assert.match(r.stderr, /Warning: checked by the validating webhook/);
      assert.equal(ok(await kn(['get', 'configmap', 'welcome', '-o', 'jsonpath={.metadata.labels.mutated-by}'])), 'webhook');
      const seen = fake.reviews('/validate').find((review) => review.request.name === 'welcome' && !review.request.dryRun);
      assert.equal(seen.request.object.metadata.labels['mutated-by'], 'webhook', 'validating webhooks see the mutated object');
    });
  });
}
