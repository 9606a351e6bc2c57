import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { auditIdOf, eventsOf } from '../audit/helpers.ts';
import { configMap, create, createNamespace, uniqueName } from '../helpers/fixtures.ts';
import { serveFile } from '../helpers/server.ts';
import { configuration, install, startAdmissionWebhook, uninstall, webhook, type Answer, type FakeAdmissionWebhook } from './webhook-helper.ts';

// Reinvocation of the whole mutating phase, as upstream's reinvocation_test.go
// (test/integration/apiserver/admissionwebhook) checks it against a real HTTPS webhook: a webhook's
// change runs the in-tree mutating plugins again (LimitRanger stands in for upstream's Priority
// plugin), webhooks with reinvocationPolicy IfNeeded are called again when something changed the
// object after them, never for the first time and at most once more; and the audit annotations
// each call leaves: mutation.webhook.admission.k8s.io/round_R_index_I (Metadata) and
// patch.webhook.admission.k8s.io/round_R_index_I (Request and above, the patch as upstream writes it).

/** Pods and configmaps here are audited at Request, in `rrNs` at RequestResponse, elsewhere at Metadata. */
const requestNs = uniqueName('reinvoke-req');
const rrNs = uniqueName('reinvoke-rr');
const dir = mkdtempSync(path.join(tmpdir(), 'pgkube-reinvoke-'));
const policy = path.join(dir, 'policy.yaml');
const auditLog = path.join(dir, 'audit.log');
writeFileSync(
  policy,
  `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Request
  namespaces: ["${requestNs}"]
- level: RequestResponse
  namespaces: ["${rrNs}"]
- level: Metadata
`,
);
let fake: FakeAdmissionWebhook;
before(async () => {
  fake = await startAdmissionWebhook('reinvocation');
});
after(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});
// As upstream's test: without ServiceAccount, the pods need no service account.
const t = serveFile([`--audit-policy-file=${policy}`, `--audit-log-path=${auditLog}`, '--disable-admission-plugins=ServiceAccount'], async (served) => {
  await createNamespace(served.api, requestNs);
  await createNamespace(served.api, rrNs);
  // LimitRanger's defaults are the in-tree mutation: every container without resources gets them.
  await create(served.api, `/api/v1/namespaces/${requestNs}/limitranges`, {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'defaults' },
    spec: { limits: [{ type: 'Container', default: { cpu: '500m', memory: '128Mi' }, defaultRequest: { cpu: '100m' } }] },
  });
});

const MWC = 'MutatingWebhookConfiguration';
const MUTATION = 'mutation.webhook.admission.k8s.io/';
const PATCH = 'patch.webhook.admission.k8s.io/';
const pods = () => `/api/v1/namespaces/${requestNs}/pods`;
const pod = (name: string, labels: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
});
const LIMIT_RANGE_DEFAULTS = { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m', memory: '128Mi' } };

const isProbe = (review: any) => String(review.request.name ?? '').startsWith('probe-');
const labelsOf = (review: any): Record<string, string> => review.request.object.metadata.labels ?? {};
/** Allows probes untouched; everything else gets `answer`. */
const unlessProbe = (answer: (review: any) => Answer) => (review: any) => (isProbe(review) ? { allowed: true } : answer(review));
/** A patch; members in an order other than Go's, so that the patch annotation shows them sorted. */
const patched = (...ops: Record<string, unknown>[]): Answer => ({ allowed: true, patch: ops.map(({ op, path, ...rest }) => ({ ...rest, path, op })) });

/** The webhooks upstream's test uses, each answering only what it is about (so a second call may change nothing). */
const BEHAVIOURS: Record<string, (review: any) => Answer> = {
  noop: () => ({ allowed: true }),
  addlabel: (r) => (labelsOf(r).a === 'true' ? { allowed: true } : patched({ op: 'add', path: '/metadata/labels/a', value: 'true' })),
  conditionaladdlabel: (r) => (labelsOf(r).a === 'true' && labelsOf(r).b !== 'true' ? patched({ op: 'add', path: '/metadata/labels/b', value: 'true' }) : { allowed: true }),
  settrue: () => patched({ op: 'replace', path: '/metadata/labels/fight', value: 'true' }),
  setfalse: () => patched({ op: 'replace', path: '/metadata/labels/fight', value: 'false' }),
  // A container without resources: LimitRanger, run again, gives it its defaults.
  addcontainer: (r) =>
    r.request.object.spec.containers.some((c: any) => c.name === 'sidecar') ? { allowed: true } : patched({ op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'busybox:1.36' } }),
};

interface Hook {
  readonly path: keyof typeof BEHAVIOURS;
  readonly policy?: 'IfNeeded' | 'Never';
  readonly objectSelector?: Record<string, string>;
}

let counter = 0;

/**
 * One case as upstream runs it: a configuration (the only one installed) with these webhooks on
 * pods labeled `case=<id>` and, last, a sentinel to know it is in use; a pod created through it;
 * the configuration removed after.
 */
async function runCase(hooks: Hook[], podLabels: Record<string, string> = {}) {
  const id = `c${++counter}`;
  const config = `admission.integration.test-${id}`;
  const caseLabels = { case: id };
  const hookName = (i: number, h: Hook) => `admission.integration.test.${i}.${h.path}`;
  const pathOf = (h: Hook) => `/${id}/${h.path}`;
  for (const h of hooks) fake.on(pathOf(h), unlessProbe(BEHAVIOURS[h.path]!));
  const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }];
  const sentinel = webhook(fake, `sentinel.${id}.example.com`, `/${id}/sentinel`, { rules, objectSelector: { matchLabels: caseLabels }, failurePolicy: 'Ignore' });
  const webhooks = hooks.map((h, i) =>
    webhook(fake, hookName(i, h), pathOf(h), {
      rules,
      objectSelector: { matchLabels: { ...caseLabels, ...h.objectSelector } },
      ...(h.policy ? { reinvocationPolicy: h.policy } : {}),
    }),
  );
  const probe = (name: string) => t.api.post(`${pods()}?dryRun=All`, pod(name, caseLabels));
  await install(t.api, configuration(MWC, config, [...webhooks, sentinel]), async () => {
    await probe(`probe-${id}`);
    return fake.reviews(`/${id}/sentinel`).length > 0;
  });
  let probes = 0;
  try {
    const res = await t.api.post(pods(), pod(`pod-${id}`, { ...caseLabels, ...podLabels }));
    const events = res.status === 201 ? await eventsOf(auditLog, auditIdOf(res), 2) : [];
    const annotations = events.at(-1)?.annotations ?? {};
    const invocations = Object.fromEntries(hooks.map((h) => [h.path, fake.reviews(pathOf(h)).filter((r) => !isProbe(r)).length]));
    const audit = (prefix: string) =>
      Object.fromEntries(Object.entries(annotations).filter(([k, v]) => k.startsWith(prefix) && !JSON.parse(v).webhook.startsWith('sentinel')));
    return { res, config, name: (i: number) => hookName(i, hooks[i]!), invocations, mutation: audit(MUTATION), patch: audit(PATCH) };
  } finally {
    await uninstall(t.api, MWC, config, async () => {
      const before = fake.reviews(`/${id}/sentinel`).length;
      await probe(`probe-${id}-gone-${++probes}`);
      return fake.reviews(`/${id}/sentinel`).length === before;
    });
  }
}

const mutated = (configuration: string, webhook: string, value: boolean) => JSON.stringify({ configuration, webhook, mutated: value });
/** Upstream's expected patch annotation: members of each operation sorted, no spaces. */
const patchValue = (configuration: string, webhook: string, patch: string) => `{"configuration":"${configuration}","webhook":"${webhook}","patch":${patch},"patchType":"JSONPatch"}`;

describe('reinvocation of the mutating phase', () => {
  test('an in-tree mutation alone reinvokes nothing: the IfNeeded webhook is called once', async () => {
    const c = await runCase([{ path: 'noop', policy: 'IfNeeded' }]);
    assert.equal(c.res.status, 201, c.res.text);
    assert.deepEqual(c.res.json.spec.containers[0].resources, LIMIT_RANGE_DEFAULTS, 'LimitRanger mutated the pod');
    assert.deepEqual(c.invocations, { noop: 1 });
    assert.deepEqual(c.mutation, { [`${MUTATION}round_0_index_0`]: mutated(c.config, c.name(0), false) });
    assert.deepEqual(c.patch, {});
  });

  test('a webhook change with nothing changed by the in-tree plugins run again: the webhook is not called again', async () => {
    const c = await runCase([{ path: 'addlabel', policy: 'IfNeeded' }]);
    assert.equal(c.res.status, 201, c.res.text);
    assert.equal(c.res.json.metadata.labels.a, 'true');
    assert.deepEqual(c.invocations, { addlabel: 1 });
    assert.deepEqual(c.mutation, { [`${MUTATION}round_0_index_0`]: mutated(c.config, c.name(0), true) });
    assert.deepEqual(c.patch, { [`${PATCH}round_0_index_0`]: patchValue(c.config, c.name(0), '[{"op":"add","path":"/metadata/labels/a","value":"true"}]') });
  });

  test('the in-tree plugins run again after a webhook change, and their change calls the IfNeeded webhook again', async () => {
    const c = await runCase([{ path: 'addcontainer', policy: 'IfNeeded' }]);
    assert.equal(c.res.status, 201, c.res.text);
    const [app, sidecar] = c.res.json.spec.containers;
    assert.deepEqual(app.resources, LIMIT_RANGE_DEFAULTS);
    assert.equal(sidecar.name, 'sidecar');
    assert.deepEqual(sidecar.resources, LIMIT_RANGE_DEFAULTS, 'LimitRanger ran again and defaulted the container the webhook added');
    assert.deepEqual(c.invocations, { addcontainer: 2 });
    assert.deepEqual(c.mutation, {
      [`${MUTATION}round_0_index_0`]: mutated(c.config, c.name(0), true),
      [`${MUTATION}round_1_index_0`]: mutated(c.config, c.name(0), false),
    });
    assert.deepEqual(c.patch, {
      [`${PATCH}round_0_index_0`]: patchValue(c.config, c.name(0), '[{"op":"add","path":"/spec/containers/-","value":{"name":"sidecar","image":"busybox:1.36"}}]'),
    });
  });

  test('a Never webhook’s change runs the in-tree plugins again, but not the webhook', async () => {
    const c = await runCase([{ path: 'addcontainer', policy: 'Never' }]);
    assert.equal(c.res.status, 201, c.res.text);
    assert.deepEqual(c.res.json.spec.containers[1].resources, LIMIT_RANGE_DEFAULTS, 'LimitRanger ran in the second round');
    assert.deepEqual(c.invocations, { addcontainer: 1 });
    assert.deepEqual(c.mutation, { [`${MUTATION}round_0_index_0`]: mutated(c.config, c.name(0), true) });
  });

  test('webhook A then B both change the object: A is called again, B (nothing changed after it) is not', async () => {
    const c = await runCase([
      { path: 'addlabel', policy: 'IfNeeded' },
      { path: 'conditionaladdlabel', policy: 'IfNeeded' },
    ]);
    assert.equal(c.res.status, 201, c.res.text);
    assert.equal(c.res.json.metadata.labels.a, 'true');
    assert.equal(c.res.json.metadata.labels.b, 'true');
    assert.deepEqual(c.invocations, { addlabel: 2, conditionaladdlabel: 1 });
    assert.deepEqual(c.mutation, {
      [`${MUTATION}round_0_index_0`]: mutated(c.config, c.name(0), true),
      [`${MUTATION}round_0_index_1`]: mutated(c.config, c.name(1), true),
      [`${MUTATION}round_1_index_0`]: mutated(c.config, c.name(0), false),
    });
    assert.deepEqual(c.patch, {
      [`${PATCH}round_0_index_0`]: patchValue(c.config, c.name(0), '[{"op":"add","path":"/metadata/labels/a","value":"true"}]'),
      [`${PATCH}round_0_index_1`]: patchValue(c.config, c.name(1), '[{"op":"add","path":"/metadata/labels/b","value":"true"}]'),
    });
  });

  test('webhooks that keep changing the object are each called twice, no more', async () => {
    const c = await runCase([
      { path: 'settrue', policy: 'IfNeeded' },
      { path: 'setfalse', policy: 'IfNeeded' },
    ], { fight: 'none' });
    assert.equal(c.res.status, 201, c.res.text);
    assert.equal(c.res.json.metadata.labels.fight, 'false');
    assert.deepEqual(c.invocations, { settrue: 2, setfalse: 2 });
    const set = (value: string) => `[{"op":"replace","path":"/metadata/labels/fight","value":"${value}"}]`;
    assert.deepEqual(c.mutation, {
      [`${MUTATION}round_0_index_0`]: mutated(c.config, c.name(0), true),
      [`${MUTATION}round_0_index_1`]: mutated(c.config, c.name(1), true),
      [`${MUTATION}round_1_index_0`]: mutated(c.config, c.name(0), true),
      [`${MUTATION}round_1_index_1`]: mutated(c.config, c.name(1), true),
    });
    assert.deepEqual(c.patch, {
      [`${PATCH}round_0_index_0`]: patchValue(c.config, c.name(0), set('true')),
      [`${PATCH}round_0_index_1`]: patchValue(c.config, c.name(1), set('false')),
      [`${PATCH}round_1_index_0`]: patchValue(c.config, c.name(0), set('true')),
      [`${PATCH}round_1_index_1`]: patchValue(c.config, c.name(1), set('false')),
    });
  });

  test('a webhook not called in the first round is not called in the second, even if it matches by then', async () => {
    const c = await runCase([
      { path: 'conditionaladdlabel', policy: 'IfNeeded', objectSelector: { a: 'true' } },
      { path: 'addlabel', policy: 'IfNeeded' },
    ]);
    assert.equal(c.res.status, 201, c.res.text);
    assert.equal(c.res.json.metadata.labels.a, 'true');
    assert.equal(c.res.json.metadata.labels.b, undefined);
    assert.deepEqual(c.invocations, { conditionaladdlabel: 0, addlabel: 1 });
    assert.deepEqual(c.mutation, { [`${MUTATION}round_0_index_1`]: mutated(c.config, c.name(1), true) });
    assert.deepEqual(c.patch, { [`${PATCH}round_0_index_1`]: patchValue(c.config, c.name(1), '[{"op":"add","path":"/metadata/labels/a","value":"true"}]') });
  });

  for (const policy of ['Never', undefined] as const) {
    test(`reinvocationPolicy ${policy ?? 'unset (Never)'}: each webhook is called once`, async () => {
      const c = await runCase([
        { path: 'conditionaladdlabel', ...(policy ? { policy } : {}) },
        { path: 'addlabel', ...(policy ? { policy } : {}) },
      ]);
      assert.equal(c.res.status, 201, c.res.text);
      assert.equal(c.res.json.metadata.labels.b, undefined);
      assert.deepEqual(c.invocations, { conditionaladdlabel: 1, addlabel: 1 });
      assert.deepEqual(c.mutation, {
        [`${MUTATION}round_0_index_0`]: mutated(c.config, c.name(0), false),
        [`${MUTATION}round_0_index_1`]: mutated(c.config, c.name(1), true),
      });
      assert.deepEqual(c.patch, { [`${PATCH}round_0_index_1`]: patchValue(c.config, c.name(1), '[{"op":"add","path":"/metadata/labels/a","value":"true"}]') });
    });
  }
});

describe('the patch audit annotation', () => {
  // Spaces, members out of order, a repeated member, one jsonpatch ignores, a number spelled 1.50,
  // an object value whose keys are not sorted, and characters Go escapes.
  const RAW_PATCH = '[ {"value": {"z": "1 < 2", "a": "x&y"},\n  "path": "/metadata/annotations", "op": "remove", "note": 1.50, "op": "add"} ]';
  const EXPECTED_PATCH = '[{"note":1.50,"op":"add","path":"/metadata/annotations","value":{"z":"1 \\u003c 2","a":"x\\u0026y"}}]';
  const config = 'patch-annotation';
  const hook = 'raw.example.com';
  let labels: Record<string, string>;

  before(async () => {
    labels = { case: 'patch-annotation' };
    fake.on('/raw', unlessProbe(() => ({ allowed: true, rawPatch: Buffer.from(RAW_PATCH).toString('base64') })));
    fake.on('/raw-sentinel', () => ({ allowed: true }));
    const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }];
    await install(
      t.api,
      configuration(MWC, config, [
        webhook(fake, hook, '/raw', { rules, objectSelector: { matchLabels: labels } }),
        webhook(fake, 'sentinel.raw.example.com', '/raw-sentinel', { rules, objectSelector: { matchLabels: labels }, failurePolicy: 'Ignore' }),
      ]),
      async () => {
        await t.api.post(`/api/v1/namespaces/${t.ns}/configmaps?dryRun=All`, configMap('probe-raw', {}, { labels }));
        return fake.reviews('/raw-sentinel').length > 0;
      },
    );
  });

  /** The annotations of a configmap created in `namespace` through the webhook. */
  async function annotationsIn(namespace: string, name: string): Promise<Record<string, string>> {
    const res = await t.api.post(`/api/v1/namespaces/${namespace}/configmaps`, configMap(name, {}, { labels }));
    assert.equal(res.status, 201, res.text);
    assert.deepEqual(res.json.metadata.annotations, { z: '1 < 2', a: 'x&y' }, 'the patch applied');
    const events = await eventsOf(auditLog, auditIdOf(res), 2);
    assert.equal(events.length, 2);
    return events.at(-1)!.annotations ?? {};
  }

  test('at Request level: upstream’s JSON, each operation’s members sorted, values as the webhook spelled them', async () => {
    const annotations = await annotationsIn(requestNs, 'at-request');
    assert.equal(annotations[`${PATCH}round_0_index_0`], patchValue(config, hook, EXPECTED_PATCH));
    assert.equal(annotations[`${MUTATION}round_0_index_0`], mutated(config, hook, true));
  });

  test('at RequestResponse level: present too', async () => {
    const annotations = await annotationsIn(rrNs, 'at-request-response');
    assert.equal(annotations[`${PATCH}round_0_index_0`], patchValue(config, hook, EXPECTED_PATCH));
  });

  test('at Metadata level: absent, while the mutation annotation is there', async () => {
    const annotations = await annotationsIn(t.ns, 'at-metadata');
    assert.equal(annotations[`${MUTATION}round_0_index_0`], mutated(config, hook, true));
    assert.deepEqual(
      Object.keys(annotations).filter((k) => k.startsWith(PATCH)),
      [],
    );
  });
});
