/**
 * Custom resources in OpenAPI v2 (JSON and gnostic protobuf) and v3, as apiextensions-apiserver's
 * openapi builder publishes them. The schema cases are those of upstream's builder_test.go
 * (TestNewBuilder, TestBuildOpenAPIV2, TestBuildOpenAPIV3, TestCRDRouteParameterBuilder), with this
 * server's own descriptions of apiVersion, kind and metadata. Kinds are put on the server's surface
 * directly (customResourceKinds), without the CRD controllers.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { customResourceSchemas } from '../../src/crd/openapi/index.ts';
import type { JSONSchemaProps } from '../../src/crd/schema/types.ts';
import { customResourceKinds } from '../../src/crd/serving/kinds.ts';
import type { CrdVersion, CustomResourceDefinition } from '../../src/crd/validation/types.ts';
import { buildOpenapiV3, decodeOpenapiV2Protobuf, OPENAPI_V2_PROTOBUF_MEDIA_TYPE, openapiV2Document } from '../../src/http/openapi/index.ts';
import { builtinKinds } from '../../src/kinds/index.ts';
import { API_VERSION_DESCRIPTION, KIND_FIELD_DESCRIPTION } from '../../src/schema/descriptions/describe.ts';
import { serveFile } from '../helpers/server.ts';

const GVK = [{ group: 'bar.k8s.io', kind: 'Foo', version: 'v1' }];
const META_DESCRIPTION = 'Standard object metadata: name, namespace, labels, annotations and the fields the server sets.';
const API_VERSION = { description: API_VERSION_DESCRIPTION, type: 'string' };
const KIND = { description: KIND_FIELD_DESCRIPTION, type: 'string' };
const META_V2 = { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', description: META_DESCRIPTION };
const META_V3 = { description: META_DESCRIPTION, allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }] };

/** builder_test.go's CRD: bar.k8s.io, Foo/foos, namespaced, one version. */
function fooCrd(version: CrdVersion, preserveUnknownFields = false): CustomResourceDefinition {
  return {
    spec: {
      group: 'bar.k8s.io',
      names: { plural: 'foos', singular: 'foo', kind: 'Foo', listKind: 'FooList' },
      scope: 'Namespaced',
      versions: [{ served: true, storage: true, ...version }],
      ...(preserveUnknownFields ? { preserveUnknownFields: true } : {}),
    },
  };
}

function fooSchema(schema: JSONSchemaProps | undefined, v2: boolean, extra: Partial<CrdVersion> = {}, preserve = false): Record<string, unknown> {
  const crd = fooCrd({ name: 'v1', ...(schema ? { schema: { openAPIV3Schema: schema } } : {}), ...extra }, preserve);
  return customResourceSchemas(crd, 'v1', { v2 }).definitions['io.k8s.bar.v1.Foo'] as Record<string, unknown>;
}

describe('the definitions of a custom resource (builder_test.go)', () => {
  test('without a schema, or with a schema it cannot publish, the kind is a bare object with its group-version-kind', () => {
    const bare = { type: 'object', 'x-kubernetes-group-version-kind': GVK };
    for (const v2 of [true, false]) {
      assert.deepEqual(fooSchema(undefined, v2), bare);
      // An unknown type, and an array without items (not structural), are not published.
      assert.deepEqual(fooSchema({ type: 'object', properties: { spec: { type: 'bug' }, status: { type: 'object' } } }, v2), bare);
      assert.deepEqual(fooSchema({ type: 'object', properties: { foo: { type: 'array' } } }, v2), bare);
    }
  });

  test('with properties: apiVersion, kind and metadata are added (metadata a reference to ObjectMeta)', () => {
    const schema = { type: 'object', properties: { spec: { type: 'object' }, status: { type: 'object' } } };
    assert.deepEqual(fooSchema(schema, true), {
      type: 'object',
      properties: { apiVersion: API_VERSION, kind: KIND, metadata: META_V2, spec: { type: 'object' }, status: { type: 'object' } },
      'x-kubernetes-group-version-kind': GVK,
    });
    assert.deepEqual(fooSchema(schema, false), {
      type: 'object',
      properties: { apiVersion: API_VERSION, kind: KIND, metadata: META_V3, spec: { type: 'object' }, status: { type: 'object' } },
      'x-kubernetes-group-version-kind': GVK,
    });
    assert.deepEqual(fooSchema({ type: 'object' }, true), {
      type: 'object', properties: { apiVersion: API_VERSION, kind: KIND, metadata: META_V2 }, 'x-kubernetes-group-version-kind': GVK,
    });
  });

  test('v2: a root preserving unknown fields, or spec.preserveUnknownFields, publishes a bare object; v3 keeps the schema', () => {
    const bare = { type: 'object', 'x-kubernetes-group-version-kind': GVK };
    assert.deepEqual(fooSchema({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, true), bare);
    assert.deepEqual(fooSchema({ type: 'object', properties: { foo: { type: 'string' } } }, true, {}, true), bare);
    assert.deepEqual(fooSchema({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, false), {
      type: 'object',
      properties: { apiVersion: API_VERSION, kind: KIND, metadata: META_V3 },
      'x-kubernetes-group-version-kind': GVK,
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  test('v2 drops the junctors (oneOf, anyOf, allOf, not); v3 keeps them', () => {
    const schema = { type: 'object', properties: { foo: { type: 'string', oneOf: [{ pattern: 'a' }, { pattern: 'b' }] } } };
    assert.deepEqual((fooSchema(schema, true).properties as any).foo, { type: 'string' });
    assert.deepEqual((fooSchema(schema, false).properties as any).foo, { type: 'string', oneOf: [{ pattern: 'a' }, { pattern: 'b' }] });
  });

  test('extensions: int-or-string keeps only its marker in v2 and is unfolded into anyOf in v3; embedded resources get type meta in v3', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        'int-or-string-1': { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
        'int-or-string-2': { 'x-kubernetes-int-or-string': true, allOf: [{ anyOf: [{ type: 'integer' }, { type: 'string' }] }, { anyOf: [{ minimum: 42 }] }] },
        'int-or-string-4': { 'x-kubernetes-int-or-string': true, anyOf: [{ minimum: 42 }] },
        'int-or-string-6': { 'x-kubernetes-int-or-string': true },
        'preserve-unknown-fields': { 'x-kubernetes-preserve-unknown-fields': true },
        'embedded-object': { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true, type: 'object' },
      },
    };
    const intOrString = { 'x-kubernetes-int-or-string': true };
    assert.deepEqual(fooSchema(schema, true), {
      type: 'object',
      properties: {
        apiVersion: API_VERSION,
        'embedded-object': { 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true },
        'int-or-string-1': intOrString,
        'int-or-string-2': intOrString,
        'int-or-string-4': intOrString,
        'int-or-string-6': intOrString,
        kind: KIND,
        metadata: META_V2,
        'preserve-unknown-fields': { 'x-kubernetes-preserve-unknown-fields': true },
      },
      'x-kubernetes-group-version-kind': GVK,
    });
    const v3 = fooSchema(schema, false).properties as any;
    const either = [{ type: 'integer' }, { type: 'string' }];
    assert.deepEqual(v3['int-or-string-1'], { anyOf: either, 'x-kubernetes-int-or-string': true });
    assert.deepEqual(v3['int-or-string-4'], { allOf: [{ anyOf: either }], anyOf: [{ minimum: 42 }], 'x-kubernetes-int-or-string': true });
    assert.deepEqual(v3['int-or-string-6'], { anyOf: either, 'x-kubernetes-int-or-string': true });
    assert.deepEqual(v3['embedded-object'], {
      type: 'object',
      required: ['kind', 'apiVersion'],
      properties: { apiVersion: API_VERSION, kind: KIND, metadata: META_V3 },
      'x-kubernetes-embedded-resource': true,
      'x-kubernetes-preserve-unknown-fields': true,
    });
  });

  test('nullable: v3 keeps it and defaults; v2 drops the type, the content and the requirement, and prunes defaults', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      required: ['spec', 'status'],
      properties: {
        spec: { type: 'object', nullable: true, properties: { a: { type: 'string' } } },
        status: { type: 'object', properties: { field: { type: 'string', default: 'foo' } } },
      },
    };
    const v2 = fooSchema(schema, true);
    assert.deepEqual(v2.required, ['status']);
    assert.deepEqual((v2.properties as any).spec, {});
    assert.deepEqual((v2.properties as any).status, { type: 'object', properties: { field: { type: 'string' } } });
    const v3 = fooSchema(schema, false);
    assert.deepEqual(v3.required, ['spec', 'status']);
    assert.deepEqual((v3.properties as any).spec, { type: 'object', nullable: true, properties: { a: { type: 'string' } } });
    assert.deepEqual((v3.properties as any).status, { type: 'object', properties: { field: { type: 'string', default: 'foo' } } });
  });

  test('list, map and validation markers are kept in both', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      properties: {
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 15 } } },
        },
        labels: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'string' } },
        replicas: { type: 'integer', minimum: 0, 'x-kubernetes-validations': [{ rule: 'self < 10', message: 'too many' }] },
      },
    };
    for (const v2 of [true, false]) {
      const props = fooSchema(schema, v2).properties as any;
      assert.deepEqual(props.ports, {
        type: 'array',
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 15 } } },
        'x-kubernetes-list-map-keys': ['name'],
        'x-kubernetes-list-type': 'map',
      });
      assert.deepEqual(props.labels, { type: 'object', additionalProperties: { type: 'string' }, 'x-kubernetes-map-type': 'atomic' });
      assert.deepEqual(props.replicas, { type: 'integer', minimum: 0, 'x-kubernetes-validations': [{ rule: 'self < 10', message: 'too many' }] });
    }
  });

  test('selectable fields are published without their leading dot', () => {
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { field: { type: 'string' } } } } };
    for (const v2 of [true, false]) {
      const s = fooSchema(schema, v2, { selectableFields: [{ jsonPath: '.spec.field' }] });
      assert.deepEqual(s['x-kubernetes-selectable-fields'], [{ fieldPath: 'spec.field' }]);
      assert.equal(fooSchema(schema, v2)['x-kubernetes-selectable-fields'], undefined);
    }
  });

  test('the list definition: items refer to the kind, metadata to ListMeta', () => {
    for (const v2 of [true, false]) {
      const prefix = v2 ? '#/definitions/' : '#/components/schemas/';
      const list = customResourceSchemas(fooCrd({ name: 'v2' }), 'v2', { v2 }).definitions['io.k8s.bar.v2.FooList'];
      assert.deepEqual(list, {
        description: 'A list of Foo objects.',
        type: 'object',
        required: ['items'],
        properties: {
          apiVersion: API_VERSION,
          items: { description: 'The Foo objects.', type: 'array', items: { $ref: `${prefix}io.k8s.bar.v2.Foo` } },
          kind: KIND,
          metadata: v2
            ? { $ref: `${prefix}io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta`, description: "The list's metadata: its resource version and continue token." }
            : { description: "The list's metadata: its resource version and continue token.", allOf: [{ $ref: `${prefix}io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta` }] },
        },
        'x-kubernetes-group-version-kind': [{ group: 'bar.k8s.io', kind: 'FooList', version: 'v2' }],
      });
    }
  });
});

const names = { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', listKind: 'CronTabList', shortNames: ['ct'] };
const cronTabSchema: JSONSchemaProps = {
  type: 'object',
  properties: {
    spec: { type: 'object', required: ['cronSpec'], properties: { cronSpec: { type: 'string' }, replicas: { type: 'integer', default: 1 } } },
    status: { type: 'object', properties: { replicas: { type: 'integer' } } },
  },
};
const cronTabs: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'crontabs.stable.example.com' },
  spec: {
    group: 'stable.example.com',
    names,
    scope: 'Namespaced',
    versions: [
      { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: cronTabSchema },
        subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } },
      { name: 'v1beta1', served: true, storage: false, schema: { openAPIV3Schema: cronTabSchema } },
    ],
  },
  status: { acceptedNames: names, storedVersions: ['v1'], conditions: [{ type: 'Established', status: 'True' }] },
};
const clusterNames = { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' };
const widgets: CustomResourceDefinition = {
  metadata: { name: 'widgets.a.example.org' },
  spec: { group: 'a.example.org', names: clusterNames, scope: 'Cluster', versions: [{ name: 'v1', served: true, storage: true }] },
  status: { acceptedNames: clusterNames, conditions: [{ type: 'Established', status: 'True' }] },
};
const crKinds = [...customResourceKinds(cronTabs), ...customResourceKinds(widgets)];

const t = serveFile([], ({ srv }) => {
  for (const kind of crKinds) srv.server.surface.add(kind);
});

/** `{ path: { method: action } }` of a document's paths under a prefix. */
function actions(paths: Record<string, any>, prefix: string): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const [path, item] of Object.entries(paths)) {
    if (!path.startsWith(prefix)) continue;
    out[path] = {};
    for (const m of ['get', 'put', 'post', 'patch', 'delete']) if (item[m]) out[path]![m] = item[m]['x-kubernetes-action'];
  }
  return out;
}

const NAMESPACED_ROUTES = {
  '/apis/stable.example.com/v1/crontabs': { get: 'list' },
  '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs': { get: 'list', post: 'post', delete: 'deletecollection' },
  '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}': { get: 'get', put: 'put', patch: 'patch', delete: 'delete' },
  '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale': { get: 'get', put: 'put', patch: 'patch' },
  '/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/status': { get: 'get', put: 'put', patch: 'patch' },
};

describe('OpenAPI v3 documents of custom resources', () => {
  test('/openapi/v3 lists each served group version with the hash of its document, and no group document', async () => {
    const index = await t.api.get('/openapi/v3');
    assert.equal(index.status, 200);
    const paths = Object.keys(index.json.paths);
    for (const p of ['apis/stable.example.com/v1', 'apis/stable.example.com/v1beta1', 'apis/a.example.org/v1']) assert.ok(paths.includes(p), p);
    assert.ok(!paths.includes('apis/stable.example.com') && !paths.includes('apis/a.example.org'));
    const url: string = index.json.paths['apis/stable.example.com/v1'].serverRelativeURL;
    const doc = await t.api.get(url);
    assert.equal(doc.status, 200);
    assert.equal(url, `/openapi/v3/apis/stable.example.com/v1?hash=${createHash('sha512').update(doc.text).digest('hex').toUpperCase()}`);
    assert.equal(doc.headers['cache-control'], 'public, immutable, max-age=31536000');
  });

  test('the group version document: every verb and subresource, JSON and YAML only, apply/merge/JSON patch', async () => {
    const doc = (await t.api.get('/openapi/v3/apis/stable.example.com/v1')).json;
    assert.equal(doc.openapi, '3.0.0');
    assert.deepEqual(doc.info, { title: 'Kubernetes CRD Swagger', version: 'v0.1.0' });
    assert.deepEqual(actions(doc.paths, '/'), NAMESPACED_ROUTES);
    const item = doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}'];
    assert.deepEqual(item.parameters.map((p: any) => [p.name, p.in, p.required ?? false]), [['name', 'path', true], ['namespace', 'path', true], ['pretty', 'query', false]]);
    assert.equal(item.patch.operationId, 'patchStableExampleComV1NamespacedCronTab');
    assert.deepEqual(item.patch.tags, ['stableExampleCom_v1']);
    assert.deepEqual(Object.keys(item.patch.requestBody.content), ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
    assert.deepEqual(item.patch.parameters.map((p: any) => p.name), ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    assert.deepEqual(Object.keys(item.patch.responses), ['200', '401']);
    assert.deepEqual(item.patch['x-kubernetes-group-version-kind'], { group: 'stable.example.com', kind: 'CronTab', version: 'v1' });
    assert.deepEqual(Object.keys(item.get.responses['200'].content), ['application/json', 'application/yaml']);
    assert.deepEqual(item.get.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/com.example.stable.v1.CronTab' });
    assert.equal(item.delete.requestBody.required, undefined);
    assert.deepEqual(Object.keys(item.delete.responses), ['200', '202', '401']);
    const collection = doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs'];
    assert.equal(collection.post.operationId, 'createStableExampleComV1NamespacedCronTab');
    assert.deepEqual(Object.keys(collection.post.responses), ['200', '201', '202', '401']);
    assert.equal(collection.delete.operationId, 'deleteStableExampleComV1CollectionNamespacedCronTab');
    assert.equal(collection.delete.requestBody, undefined);
    assert.ok(collection.delete.parameters.some((p: any) => p.name === 'labelSelector'));
    assert.equal(doc.paths['/apis/stable.example.com/v1/crontabs'].get.operationId, 'listStableExampleComV1CronTabForAllNamespaces');
    const scale = doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}/scale'];
    assert.equal(scale.get.operationId, 'readStableExampleComV1NamespacedCronTabScale');
    assert.deepEqual(scale.put.requestBody.content['application/json'].schema, { $ref: '#/components/schemas/io.k8s.api.autoscaling.v1.Scale' });

    const schemas = doc.components.schemas;
    for (const name of ['com.example.stable.v1.CronTab', 'com.example.stable.v1.CronTabList', 'io.k8s.api.autoscaling.v1.Scale',
      'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta', 'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta', 'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
      'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions', 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch']) assert.ok(schemas[name], name);
    assert.ok(!Object.keys(schemas).some((n) => n.includes('v1beta1.CronTab')));
    assert.deepEqual(schemas['io.k8s.api.autoscaling.v1.Scale']['x-kubernetes-group-version-kind'], [{ group: 'autoscaling', kind: 'Scale', version: 'v1' }]);
    assert.deepEqual(schemas['com.example.stable.v1.CronTab'], customResourceSchemas(cronTabs, 'v1', { v2: false }).definitions['com.example.stable.v1.CronTab']);
    const published: any = schemas['com.example.stable.v1.CronTab'];
    assert.equal(published.properties.spec.properties.replicas.default, 1);
  });

  test('a cluster-scoped kind has no namespace paths and no all-namespaces list', async () => {
    const doc = (await t.api.get('/openapi/v3/apis/a.example.org/v1')).json;
    assert.deepEqual(actions(doc.paths, '/'), {
      '/apis/a.example.org/v1/widgets': { get: 'list', post: 'post', delete: 'deletecollection' },
      '/apis/a.example.org/v1/widgets/{name}': { get: 'get', put: 'put', patch: 'patch', delete: 'delete' },
    });
    assert.equal(doc.paths['/apis/a.example.org/v1/widgets/{name}'].get.operationId, 'readAExampleOrgV1Widget');
    assert.deepEqual(doc.components.schemas['org.example.a.v1.Widget'], { type: 'object', 'x-kubernetes-group-version-kind': [{ group: 'a.example.org', kind: 'Widget', version: 'v1' }] });
  });
});

describe('OpenAPI v2 of custom resources', () => {
  test('/openapi/v2 has the custom resources\' paths and v2 definitions beside the built-in ones', async () => {
    const doc = (await t.api.get('/openapi/v2')).json;
    assert.deepEqual(actions(doc.paths, '/apis/stable.example.com/v1/'), NAMESPACED_ROUTES);
    const item = doc.paths['/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}'];
    assert.deepEqual(item.patch.consumes, ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml']);
    assert.deepEqual(item.put.consumes, ['application/json', 'application/yaml']);
    assert.deepEqual(item.get.produces, ['application/json', 'application/yaml']);
    assert.deepEqual(item.delete.parameters[0], { in: 'body', name: 'body', schema: { $ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions' } });
    const cronTab: any = doc.definitions['com.example.stable.v1.CronTab'];
    assert.deepEqual(cronTab, customResourceSchemas(cronTabs, 'v1', { v2: true }).definitions['com.example.stable.v1.CronTab']);
    assert.equal((doc.definitions['com.example.stable.v1.CronTab'] as any).properties.spec.properties.replicas.default, undefined);
    assert.ok(doc.definitions['com.example.stable.v1beta1.CronTabList']);
    assert.ok(doc.definitions['io.k8s.api.core.v1.ConfigMap']);
    assert.equal(doc.paths['/apis/stable.example.com/'], undefined);
  });

  test('the protobuf form carries the custom resource definitions with their group-version-kind', async () => {
    const res = await t.api.get('/openapi/v2', { Accept: OPENAPI_V2_PROTOBUF_MEDIA_TYPE });
    assert.equal(res.status, 200);
    const doc = decodeOpenapiV2Protobuf(res.bytes) as any;
    const def = doc.definitions.additional_properties.find((p: any) => p.name === 'com.example.stable.v1.CronTab').value;
    assert.deepEqual(def.type, { value: ['object'] });
    const gvk = def.vendor_extension.find((e: any) => e.name === 'x-kubernetes-group-version-kind');
    assert.equal(gvk.value.yaml, '- group: stable.example.com\n  kind: CronTab\n  version: v1\n');
  });
});

describe('built-in documents are unchanged by custom resources', () => {
  test('every built-in v3 document and every built-in v2 path and definition stay byte for byte', () => {
    const options = { version: 'v1.34.0' };
    const alone = buildOpenapiV3(builtinKinds, options);
    const mixed = buildOpenapiV3([...builtinKinds, ...crKinds], options);
    for (const [path, entry] of alone.documents) {
      // The root `apis` document lists groups only; the group version documents must be identical.
      assert.equal(mixed.documents.get(path)!.json, entry.json, path);
    }
    const v2Alone = openapiV2Document(builtinKinds, options) as any;
    const v2Mixed = openapiV2Document([...builtinKinds, ...crKinds], options) as any;
    for (const [path, item] of Object.entries(v2Alone.paths)) assert.equal(JSON.stringify(v2Mixed.paths[path]), JSON.stringify(item), path);
    for (const [name, def] of Object.entries(v2Alone.definitions)) assert.equal(JSON.stringify(v2Mixed.definitions[name]), JSON.stringify(def), name);
  });
});
