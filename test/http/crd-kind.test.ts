/**
 * The CustomResourceDefinition kind over HTTPS: the verbs in JSON, YAML and protobuf, the status
 * subresource, server-side apply and strict field validation (the custom resources it defines are
 * src/crd/serving's, tested there).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import yaml from 'js-yaml';
import { decodeProtobufObject, encodeProtobufObject } from '../../src/codecs/protobuf/index.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { assertStatus } from '../helpers/fixtures.ts';
import type { Reply } from '../helpers/http.ts';
import { serveFile } from '../helpers/server.ts';
import { certificateCrd, simpleCrd, twoVersionCrd } from '../kinds/custom-resource-definition-fixtures.ts';

const t = serveFile();
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** PUT of a read-modify-write, again on conflicts (the CRD controllers may write status meanwhile). */
async function modify(path: string, change: (o: any) => void, headers?: Record<string, string>): Promise<Reply> {
  for (let i = 0; ; i++) {
    const current = await t.api.get(path);
    assert.equal(current.status, 200, current.text);
    change(current.json);
    const res = await t.api.put(path, current.json, headers);
    if (res.status !== 409 || i >= 10) return res;
  }
}

async function gone(path: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await t.api.get(path)).status === 404) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`${path} is still there`);
}

test('create, get, list, update and delete a CRD in JSON', async () => {
  const created = await t.api.post(CRDS, certificateCrd('json.example.com'));
  assert.equal(created.status, 201, created.text);
  const crd = created.json;
  assert.equal(crd.apiVersion, 'apiextensions.k8s.io/v1');
  assert.equal(crd.kind, 'CustomResourceDefinition');
  assert.equal(crd.metadata.generation, 1);
  assert.deepEqual(crd.spec.conversion, { strategy: 'None' });
  assert.deepEqual(crd.status.storedVersions, ['v1']);
  // The schema comes back as it was sent: unions and free JSON untouched.
  assert.deepEqual(crd.spec.versions[0].schema, (certificateCrd('json.example.com').spec as any).versions[0].schema);

  const path = `${CRDS}/certificates.json.example.com`;
  const got = await t.api.get(path);
  assert.equal(got.status, 200, got.text);
  assert.equal(got.json.metadata.uid, crd.metadata.uid);

  const list = await t.api.get(CRDS);
  assert.equal(list.status, 200, list.text);
  assert.equal(list.json.kind, 'CustomResourceDefinitionList');
  assert.ok(list.json.items.some((i: KubeObject) => i.metadata?.name === 'certificates.json.example.com'));

  // Upstream's CRD REST uses the default table convertor.
  const table = await t.api.get(`${CRDS}/certificates.json.example.com`, { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
  assert.equal(table.status, 200, table.text);
  assert.deepEqual(table.json.columnDefinitions.map((c: { name: string; type: string }) => `${c.name}:${c.type}`), ['Name:string', 'Created At:date']);
  assert.deepEqual(table.json.rows[0].cells, ['certificates.json.example.com', crd.metadata.creationTimestamp]);

  const byShortName = await t.api.get(`${CRDS}?fieldSelector=metadata.name%3Dcertificates.json.example.com`);
  assert.deepEqual(byShortName.json.items.map((i: KubeObject) => i.metadata?.name), ['certificates.json.example.com']);

  const updated = await modify(path, (o) => {
    o.spec.versions[0].additionalPrinterColumns.push({ name: 'Renewal', type: 'date', jsonPath: '.status.renewalTime' });
  });
  assert.equal(updated.status, 200, updated.text);
  assert.equal(updated.json.metadata.generation, 2);

  // An update without a resourceVersion is refused (AllowUnconditionalUpdate is false).
  const unconditional = { ...got.json, metadata: { ...got.json.metadata, resourceVersion: undefined } };
  assertStatus(await t.api.put(path, unconditional), 422, 'Invalid', /metadata.resourceVersion: Invalid value: 0x0: must be specified for an update/);

  const deleted = await t.api.delete(path);
  assert.ok(deleted.status === 200 || deleted.status === 202, deleted.text);
  await gone(path);
});

test('create and read a CRD in YAML', async () => {
  const body = yaml.dump(twoVersionCrd('yamls', 'yaml.example.com', 'Yaml'));
  const created = await t.api.post(CRDS, body, { 'Content-Type': 'application/yaml', Accept: 'application/yaml' });
  assert.equal(created.status, 201, created.text);
  assert.match(String(created.headers['content-type']), /^application\/yaml/);
  const crd = yaml.load(created.text) as any;
  assert.equal(crd.metadata.name, 'yamls.yaml.example.com');
  assert.deepEqual(crd.status.storedVersions, ['v1beta1']);
  assert.equal(crd.spec.versions[0].deprecationWarning, 'yaml.example.com/v1beta1 Yaml is deprecated');

  const got = await t.api.get(`${CRDS}/yamls.yaml.example.com`, { Accept: 'application/yaml' });
  assert.equal(got.status, 200, got.text);
  assert.equal((yaml.load(got.text) as any).metadata.uid, crd.metadata.uid);
});

test('an invalid CRD is 422 with upstream causes', async () => {
  const bad = simpleCrd('foos', 'example.com', 'Foo', { meta: { name: 'bars.example.com' } });
  const res = assertStatus(
    await t.api.post(CRDS, bad),
    422,
    'Invalid',
    'CustomResourceDefinition.apiextensions.k8s.io "bars.example.com" is invalid: metadata.name: Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group',
  );
  assert.deepEqual(res.details, {
    name: 'bars.example.com',
    group: 'apiextensions.k8s.io',
    kind: 'CustomResourceDefinition',
    causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group', field: 'metadata.name' }],
  });
});

test('a generated name is refused: it can never be <plural>.<group>', async () => {
  const crd = simpleCrd('generateds', 'example.com', 'Generated');
  crd.metadata = { generateName: 'generated-' };
  const res = assertStatus(await t.api.post(CRDS, crd), 422, 'Invalid');
  const causes = res.details.causes.map((c: { field: string; message: string }) => `${c.field}: ${c.message}`);
  assert.equal(causes.length, 2, causes.join('\n'));
  assert.equal(causes[0], 'metadata.generateName: Invalid value: "generated-": must be spec.names.plural+"."+spec.group');
  assert.match(causes[1], /^metadata\.name: Invalid value: "generated-[a-z0-9]{5}": must be spec\.names\.plural\+"\."\+spec\.group$/);
});

test('an unrecognized format is a warning', async () => {
  const crd = simpleCrd('formats', 'warn.example.com', 'Format', {
    version: { schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { a: { type: 'string', format: 'no-such-format' } } } } } } },
  });
  const res = await t.api.post(CRDS, crd);
  assert.equal(res.status, 201, res.text);
  assert.equal(res.headers.warning, '299 - "unrecognized format \\"no-such-format\\""');
});

test('the status subresource writes status only, and the main resource ignores status', async () => {
  const created = await t.api.post(CRDS, twoVersionCrd('gizmos', 'status.example.com', 'Gizmo'));
  assert.equal(created.status, 201, created.text);
  const path = `${CRDS}/gizmos.status.example.com`;

  const viaMain = await modify(path, (o) => {
    o.status.storedVersions = ['v1beta1', 'v1'];
  });
  assert.equal(viaMain.status, 200, viaMain.text);
  assert.deepEqual(viaMain.json.status.storedVersions, ['v1beta1']);

  const viaStatus = await modify(`${path}/status`, (o) => {
    o.status.storedVersions = ['v1beta1', 'v1'];
    o.spec.group = 'ignored.example.com';
    o.metadata.labels = { via: 'status' };
  });
  assert.equal(viaStatus.status, 200, viaStatus.text);
  assert.deepEqual(viaStatus.json.status.storedVersions, ['v1beta1', 'v1']);
  assert.equal(viaStatus.json.spec.group, 'status.example.com');
  // Upstream's status strategy resets metadata from the body itself: labels sent there are kept.
  assert.deepEqual(viaStatus.json.metadata.labels, { via: 'status' });

  const patched = await t.api.patch(`${path}/status`, { status: { acceptedNames: { plural: 'Bad_Plural', kind: 'Gizmo' } } }, 'application/merge-patch+json');
  assertStatus(patched, 422, 'Invalid', /status.acceptedNames.plural: Invalid value: "Bad_Plural"/);
});

test('server-side apply creates and updates a CRD and records managedFields', async () => {
  const path = `${CRDS}/applied.apply.example.com`;
  const config = simpleCrd('applied', 'apply.example.com', 'Applied');
  const first = await t.api.patch(`${path}?fieldManager=kubectl`, yaml.dump(config), 'application/apply-patch+yaml');
  assert.equal(first.status, 201, first.text);
  const entries = first.json.metadata.managedFields as { manager: string; operation: string; fieldsV1: any }[];
  const apply = entries.find((e) => e.manager === 'kubectl' && e.operation === 'Apply');
  assert.ok(apply, JSON.stringify(entries));
  assert.deepEqual(Object.keys(apply.fieldsV1['f:spec']).sort(), ['f:group', 'f:names', 'f:scope', 'f:versions']);
  assert.deepEqual(apply.fieldsV1['f:spec']['f:versions'], {});
  assert.equal(apply.fieldsV1['f:status'], undefined);

  // Applying again with another column and a default in the schema updates the CRD.
  const spec = config.spec as any;
  spec.versions[0].additionalPrinterColumns = [{ name: 'Color', type: 'string', jsonPath: '.spec.color' }];
  spec.versions[0].schema.openAPIV3Schema.properties.spec = { type: 'object', properties: { color: { type: 'string', default: 'blue', enum: ['blue', 'red'] } } };
  const second = await t.api.patch(`${path}?fieldManager=kubectl`, yaml.dump(config), 'application/apply-patch+yaml');
  assert.equal(second.status, 200, second.text);
  assert.equal(second.json.metadata.generation, 2);
  assert.deepEqual(second.json.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.color, { type: 'string', default: 'blue', enum: ['blue', 'red'] });

  // Another manager changing the group conflicts (and the group is immutable anyway).
  const conflict = await t.api.patch(`${path}?fieldManager=other`, yaml.dump({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'applied.apply.example.com' }, spec: { scope: 'Cluster' } }), 'application/apply-patch+yaml');
  assertStatus(conflict, 409, 'Conflict', /conflict with "kubectl": \.spec\.scope/);
});

test('fieldValidation=Strict refuses unknown fields, at the top and inside openAPIV3Schema', async () => {
  const top = simpleCrd('stricts', 'strict.example.com', 'Strict');
  (top.spec as any).bogus = true;
  assertStatus(
    await t.api.post(`${CRDS}?fieldValidation=Strict`, top),
    400,
    'BadRequest',
    'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict decoding error: unknown field "spec.bogus"',
  );

  const inner = simpleCrd('stricts', 'strict.example.com', 'Strict');
  (inner.spec as any).versions[0].schema.openAPIV3Schema.properties.spec.typo = 'object';
  assertStatus(
    await t.api.post(`${CRDS}?fieldValidation=Strict`, inner),
    400,
    'BadRequest',
    'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict decoding error: unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.typo"',
  );

  // Schemas under items (and the other unions) decode leniently upstream: nothing is reported, the key is dropped.
  const nested = simpleCrd('nesteds', 'strict.example.com', 'Nested');
  (nested.spec as any).versions[0].schema.openAPIV3Schema.properties.spec = { type: 'object', properties: { list: { type: 'array', items: { type: 'string', typo: 1 } } } };
  const lenient = await t.api.post(`${CRDS}?fieldValidation=Strict`, nested);
  assert.equal(lenient.status, 201, lenient.text);
  assert.equal(lenient.headers.warning, undefined);
  assert.deepEqual(lenient.json.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.list.items, { type: 'string' });

  // Warn (the default) drops them with a warning.
  const warned = await t.api.post(CRDS, inner);
  assert.equal(warned.status, 201, warned.text);
  assert.equal(warned.headers.warning, '299 - "unknown field \\"spec.versions[0].schema.openAPIV3Schema.properties.spec.typo\\""');
  assert.equal(warned.json.spec.versions[0].schema.openAPIV3Schema.properties.spec.typo, undefined);
});

test('a CRD round-trips through protobuf', async () => {
  const crd = simpleCrd('protos', 'proto.example.com', 'Proto', {
    version: {
      schema: {
        openAPIV3Schema: {
          type: 'object',
          properties: {
            spec: {
              type: 'object',
              required: ['size'],
              properties: {
                size: { type: 'number', minimum: 0.5, maximum: 10, default: 1.5 },
                tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                labels: { type: 'object', additionalProperties: { type: 'string' } },
                mode: { type: 'string', enum: ['a', 'b'] },
              },
              'x-kubernetes-validations': [{ rule: 'self.size > 0', message: 'size must be positive' }],
            },
          },
        },
      },
    },
  });
  const body = encodeProtobufObject(crd);
  const created = await t.api.post(CRDS, Buffer.from(body), { 'Content-Type': PROTOBUF, Accept: PROTOBUF });
  assert.equal(created.status, 201, created.text);
  assert.equal(created.headers['content-type'], PROTOBUF);
  const decoded = decodeProtobufObject(created.bytes).object as any;
  assert.equal(decoded.kind, 'CustomResourceDefinition');
  assert.deepEqual(decoded.spec.versions[0].schema, (crd.spec as any).versions[0].schema);

  const asJson = await t.api.get(`${CRDS}/protos.proto.example.com`);
  assert.deepEqual(asJson.json.spec.versions[0].schema, (crd.spec as any).versions[0].schema);
  // Go writes the names struct whole: the empty accepted names of a new CRD survive protobuf.
  assert.deepEqual(decoded.status.acceptedNames, { plural: '', kind: '' });

  const list = await t.api.get(CRDS, { Accept: PROTOBUF });
  assert.equal(list.status, 200);
  const items = (decodeProtobufObject(list.bytes).object as any).items as KubeObject[];
  assert.ok(items.some((i) => i.metadata?.name === 'protos.proto.example.com'));
});
