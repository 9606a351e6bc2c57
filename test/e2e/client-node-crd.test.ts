/**
 * Custom resources through the official JavaScript client (`@kubernetes/client-node` 1.4.0): the CRD
 * made with ApiextensionsV1Api and waited for until Established, then CustomObjectsApi's create, get,
 * list (namespaced and cluster-wide), merge patch, replace, status replace and delete, its errors as
 * Status objects (a CEL rule's 422, a stale replace's 409, a missing object's 404), and an informer on
 * the custom resource that sees add, update and delete.
 *
 * Expected answers follow upstream's generic registry as the custom resource handler uses it: delete
 * answers a Success Status naming the resource (registry/generic/registry/store.go), the status
 * subresource keeps spec and the main resource keeps status (apiextensions-apiserver
 * registry/customresource strategy and status_strategy), and the generation moves with spec only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  ApiException,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubeConfig,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  V1JSONSchemaProps,
  type KubernetesObject,
} from '@kubernetes/client-node';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { certificate, certificateCrd, NEEDS_A_NAME, readyStatus } from './crd-fixtures.ts';

const NS = 'client-node-crd';
const GROUP = 'client.certs.example.com';
const PLURAL = 'certificates';
const at = { group: GROUP, version: 'v1', plural: PLURAL } as const;

let srv: TestServer;
let kc: KubeConfig;
let custom: CustomObjectsApi;
let extensions: ApiextensionsV1Api;

before(async () => {
  srv = await startTestServer();
  kc = new KubeConfig();
  kc.loadFromFile(srv.kubeconfig);
  custom = kc.makeApiClient(CustomObjectsApi);
  extensions = kc.makeApiClient(ApiextensionsV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: NS } } });
  await core.createNamespace({ body: { metadata: { name: `${NS}-other` } } });
});
after(async () => {
  await srv?.stop();
});

/** Polls `check` until it returns a value (resolving with it), or rejects after `ms`. */
function eventually<T>(check: () => T | undefined | Promise<T | undefined>, what: string, ms = 15_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const tick = async () => {
      try {
        const value = await check();
        if (value !== undefined) return resolve(value);
      } catch {
        // not yet
      }
      if (Date.now() - started > ms) return reject(new Error(`timed out waiting for ${what}`));
      setTimeout(tick, 50);
    };
    void tick();
  });
}

/** The error a rejected call threw, asserting it is an ApiException. */
async function apiError(call: Promise<unknown>): Promise<ApiException<unknown>> {
  try {
    await call;
  } catch (err) {
    assert.ok(err instanceof ApiException, `expected an ApiException, got ${err}`);
    return err;
  }
  assert.fail('the call succeeded');
}

/** The response body of an ApiException as an object (the library hands it over as text). */
function statusOf(err: ApiException<unknown>): any {
  return typeof err.body === 'string' ? JSON.parse(err.body) : err.body;
}

/** Wire names of JSONSchemaProps fields → client-node's model names (`default` → `_default`, `$ref` → `ref` …). */
const MODEL_NAMES = new Map(V1JSONSchemaProps.getAttributeTypeMap().map((a) => [a.baseName, a.name]));

/** A schema in client-node's model shape (its serializer writes model names and drops wire names). */
function schemaModel(schema: Record<string, any>): Record<string, any> {
  const out: Record<string, any> = {};
  for (const [key, value] of Object.entries(schema)) {
    const name = MODEL_NAMES.get(key) ?? key;
    if (key === 'properties') out[name] = Object.fromEntries(Object.entries(value).map(([p, s]) => [p, schemaModel(s as Record<string, any>)]));
    else if (key === 'items' || (key === 'additionalProperties' && typeof value === 'object')) out[name] = schemaModel(value);
    else out[name] = value;
  }
  return out;
}

/** The CRD fixture as client-node's ApiextensionsV1Api takes it: each version's schema in model shape. */
function asClientModel(crd: Record<string, any>): any {
  const versions = crd.spec.versions.map((v: any) => ({ ...v, schema: { openAPIV3Schema: schemaModel(v.schema.openAPIV3Schema) } }));
  return { ...crd, spec: { ...crd.spec, versions } };
}

const cert = (name: string, spec: Record<string, unknown> = {}, namespace = NS) =>
  certificate(GROUP, namespace, name, { secretName: `${name}-tls`, commonName: `${name}.example.com`, issuerRef: { name: 'ca' }, ...spec });
const MERGE = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('@kubernetes/client-node: custom resources', () => {
  it('creates the CRD and sees it Established', async () => {
    const created = await extensions.createCustomResourceDefinition({ body: asClientModel(certificateCrd(GROUP, 'clientcerts')) });
    // The rule and the defaults reached the server (read back through the same model).
    const spec = created.spec.versions[0]?.schema?.openAPIV3Schema?.properties?.spec;
    assert.equal(spec?.x_kubernetes_validations?.[0]?.message, NEEDS_A_NAME);
    assert.equal(spec?.properties?.duration?._default, '2160h');
    assert.deepEqual(spec?.properties?.privateKey?.properties?.algorithm?._enum, ['RSA', 'ECDSA', 'Ed25519']);
    assert.equal(created.metadata?.name, `${PLURAL}.${GROUP}`);
    const established = await eventually(async () => {
      const crd = await extensions.readCustomResourceDefinition({ name: `${PLURAL}.${GROUP}` });
      return crd.status?.conditions?.find((c) => c.type === 'Established' && c.status === 'True');
    }, 'the Established condition');
    assert.equal(established.reason, 'InitialNamesAccepted');
    // Served once Established: the group version answers (the client has no discovery cache to wait for).
    await eventually(async () => ((await custom.listNamespacedCustomObject({ ...at, namespace: NS })).items ? true : undefined), 'the served resource');
  });

  it('create, get and list a custom object; defaults are filled in', async () => {
    const created = await custom.createNamespacedCustomObject({ ...at, namespace: NS, body: cert('crud') });
    assert.equal(created.apiVersion, `${GROUP}/v1`);
    assert.equal(created.kind, 'Certificate');
    assert.match(created.metadata.uid, /^[0-9a-f-]{36}$/);
    assert.match(created.metadata.resourceVersion, /^\d+$/);
    assert.equal(created.metadata.generation, 1);
    assert.deepEqual(created.spec.issuerRef, { name: 'ca', kind: 'Issuer' });
    assert.equal(created.spec.duration, '2160h');

    const read = await custom.getNamespacedCustomObject({ ...at, namespace: NS, name: 'crud' });
    assert.deepEqual(read, created);

    await custom.createNamespacedCustomObject({ ...at, namespace: `${NS}-other`, body: cert('elsewhere', {}, `${NS}-other`) });
    const list = await custom.listNamespacedCustomObject({ ...at, namespace: NS });
    assert.equal(list.apiVersion, `${GROUP}/v1`);
    assert.equal(list.kind, 'CertificateList');
    assert.match(list.metadata.resourceVersion, /^\d+$/);
    assert.deepEqual(list.items.map((i: any) => i.metadata.name), ['crud']);

    const everywhere = await custom.listClusterCustomObject(at);
    assert.deepEqual(everywhere.items.map((i: any) => `${i.metadata.namespace}/${i.metadata.name}`), [`${NS}/crud`, `${NS}-other/elsewhere`]);
    const selected = await custom.listClusterCustomObject({ ...at, fieldSelector: `metadata.namespace=${NS}-other` });
    assert.deepEqual(selected.items.map((i: any) => i.metadata.name), ['elsewhere']);
  });

  it('a merge patch changes spec and bumps the generation; status in it is ignored', async () => {
    const patched = await custom.patchNamespacedCustomObject(
      { ...at, namespace: NS, name: 'crud', body: { spec: { dnsNames: ['crud.example.com'] }, status: readyStatus() } },
      MERGE,
    );
    assert.deepEqual(patched.spec.dnsNames, ['crud.example.com']);
    assert.equal(patched.status, undefined);
    assert.equal(patched.metadata.generation, 2);
  });

  it('replace writes the whole object; a stale resourceVersion is a 409 Conflict', async () => {
    const current = await custom.getNamespacedCustomObject({ ...at, namespace: NS, name: 'crud' });
    const replaced = await custom.replaceNamespacedCustomObject({ ...at, namespace: NS, name: 'crud', body: { ...current, spec: { ...current.spec, secretName: 'crud-tls-2' } } });
    assert.equal(replaced.spec.secretName, 'crud-tls-2');
    assert.ok(Number(replaced.metadata.resourceVersion) > Number(current.metadata.resourceVersion));
    assert.equal(replaced.metadata.generation, 3);

    const err = await apiError(custom.replaceNamespacedCustomObject({ ...at, namespace: NS, name: 'crud', body: { ...current, spec: { ...current.spec, secretName: 'lost' } } }));
    assert.equal(err.code, 409);
    assert.equal(statusOf(err).reason, 'Conflict');
    assert.equal(
      statusOf(err).message,
      `Operation cannot be fulfilled on certificates.${GROUP} "crud": the object has been modified; please apply your changes to the latest version and try again`,
    );
  });

  it('status replace writes status only and leaves the generation', async () => {
    const current = await custom.getNamespacedCustomObject({ ...at, namespace: NS, name: 'crud' });
    const body = { ...current, spec: { ...current.spec, secretName: 'not-through-status' }, status: readyStatus() };
    const written = await custom.replaceNamespacedCustomObjectStatus({ ...at, namespace: NS, name: 'crud', body });
    assert.equal(written.status.conditions[0].type, 'Ready');
    assert.equal(written.spec.secretName, 'crud-tls-2');
    assert.equal(written.metadata.generation, current.metadata.generation);
    const status = await custom.getNamespacedCustomObjectStatus({ ...at, namespace: NS, name: 'crud' });
    assert.deepEqual(status.status, readyStatus());
  });

  it('a CEL rule refuses an object with 422 Invalid and upstream’s cause', async () => {
    const err = await apiError(custom.createNamespacedCustomObject({ ...at, namespace: NS, body: certificate(GROUP, NS, 'bad', { secretName: 'x', issuerRef: { name: 'ca' } }) }));
    assert.equal(err.code, 422);
    const status = statusOf(err);
    assert.equal(status.reason, 'Invalid');
    assert.equal(status.message, `Certificate.${GROUP} "bad" is invalid: spec: Invalid value: "object": ${NEEDS_A_NAME}`);
    assert.deepEqual(status.details, {
      name: 'bad',
      group: GROUP,
      kind: 'Certificate',
      causes: [{ reason: 'FieldValueInvalid', message: `Invalid value: "object": ${NEEDS_A_NAME}`, field: 'spec' }],
    });
  });

  it('a schema violation skips the CEL rules and says so in a cause whose field is <nil>', async () => {
    const body = certificate(GROUP, NS, 'bad', { secretName: 'x', issuerRef: { name: 'ca' }, privateKey: { algorithm: 'DSA' } });
    const err = await apiError(custom.createNamespacedCustomObject({ ...at, namespace: NS, body }));
    assert.equal(err.code, 422);
    const status = statusOf(err);
    // The CEL rule (no commonName, no dnsNames) is not reported: validation stopped at the enum
    // (hasBlockingErr in registry/customresource/strategy.go); a nil field.Path prints as "<nil>".
    const unsupported = 'Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"';
    const skipped = 'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
    assert.equal(status.message, `Certificate.${GROUP} "bad" is invalid: [spec.privateKey.algorithm: ${unsupported}, <nil>: ${skipped}]`);
    assert.deepEqual(status.details.causes, [
      { reason: 'FieldValueNotSupported', message: unsupported, field: 'spec.privateKey.algorithm' },
      { reason: 'FieldValueInvalid', message: skipped, field: '<nil>' },
    ]);
  });

  it('a patch without a content type header is a JSON patch (the client’s default for custom objects)', async () => {
    const patched = await custom.patchNamespacedCustomObject({ ...at, namespace: NS, name: 'crud', body: [{ op: 'replace', path: '/spec/secretName', value: 'crud-tls-3' }] });
    assert.equal(patched.spec.secretName, 'crud-tls-3');
  });

  it('delete answers a Success Status naming the resource; the object is then 404', async () => {
    const current = await custom.getNamespacedCustomObject({ ...at, namespace: NS, name: 'crud' });
    const answer = await custom.deleteNamespacedCustomObject({ ...at, namespace: NS, name: 'crud' });
    assert.deepEqual(answer, {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: 'crud', group: GROUP, kind: PLURAL, uid: current.metadata.uid },
    });
    const gone = await apiError(custom.getNamespacedCustomObject({ ...at, namespace: NS, name: 'crud' }));
    assert.equal(gone.code, 404);
    assert.equal(statusOf(gone).reason, 'NotFound');
    assert.equal(statusOf(gone).message, `certificates.${GROUP} "crud" not found`);
  });

  it('an informer on the custom resource sees add, update and delete', async () => {
    const informer = makeInformer<KubernetesObject & { spec?: any }>(kc, `/apis/${GROUP}/v1/namespaces/${NS}/${PLURAL}`, () =>
      custom.listNamespacedCustomObject({ ...at, namespace: NS }),
    );
    const seen: string[] = [];
    informer.on('add', (o) => seen.push(`add ${o.metadata?.name} ${o.spec?.secretName}`));
    informer.on('update', (o) => seen.push(`update ${o.metadata?.name} ${o.spec?.secretName}`));
    informer.on('delete', (o) => seen.push(`delete ${o.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (err) => errors.push(err));
    await custom.createNamespacedCustomObject({ ...at, namespace: NS, body: cert('listed') });
    await informer.start();
    try {
      await eventually(() => (seen.includes('add listed listed-tls') ? true : undefined), 'the listed object');
      await custom.createNamespacedCustomObject({ ...at, namespace: NS, body: cert('informed') });
      await eventually(() => (seen.includes('add informed informed-tls') ? true : undefined), 'add informed');
      await custom.patchNamespacedCustomObject({ ...at, namespace: NS, name: 'informed', body: { spec: { secretName: 'informed-2' } } }, MERGE);
      await eventually(() => (seen.includes('update informed informed-2') ? true : undefined), 'update informed');
      assert.equal(informer.get('informed', NS)?.spec?.secretName, 'informed-2');
      await custom.deleteNamespacedCustomObject({ ...at, namespace: NS, name: 'informed' });
      await eventually(() => (seen.includes('delete informed') ? true : undefined), 'delete informed');
      assert.equal(informer.get('informed', NS), undefined);
      // The cache holds what the server lists (here: 'listed', unless another test left an object).
      const served = (await custom.listNamespacedCustomObject({ ...at, namespace: NS })).items.map((i: any) => i.metadata.name);
      assert.ok(served.includes('listed') && !served.includes('informed'), `${served}`);
      assert.deepEqual(informer.list(NS).map((o) => o.metadata?.name).sort(), served);
      assert.deepEqual(errors, []);
    } finally {
      await informer.stop();
    }
    assert.deepEqual(
      seen.filter((s) => s.includes('informed')),
      ['add informed informed-tls', 'update informed informed-2', 'delete informed'],
    );
  });
});
