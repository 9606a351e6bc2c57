import assert from 'node:assert/strict';
import { statusSubresource } from '../../src/registry/subresources.ts';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { load } from 'js-yaml';
import {
  buildOpenapiV3,
  decodeOpenapiV2Protobuf,
  encodeOpenapiV2Protobuf,
  openapiV2Document,
  openapiV3Document,
  openapiV3Index,
  openapiV3Paths,
} from '../../src/http/openapi/index.ts';
import { defineKind, type KindDefinition } from '../../src/registry/kind.ts';
import { builtinKinds } from '../../src/kinds/index.ts';

type Json = Record<string, any>;

function configMaps(): KindDefinition {
  return defineKind({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true,
    schemaMessage: 'k8s.io.api.core.v1.ConfigMap', shortNames: ['cm'] });
}

function namespaces(): KindDefinition {
  return defineKind({ group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false,
    schemaMessage: 'k8s.io.api.core.v1.Namespace', subresources: [statusSubresource(), { name: 'finalize', verbs: ['update'] }] });
}

function leases(): KindDefinition {
  return defineKind({ group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true,
    schemaMessage: 'k8s.io.api.coordination.v1.Lease' });
}

function gvk(group: string, version: string, kind: string): Json {
  return { group, kind, version };
}

/** The PATCH operations whose GVK extension names the kind: kubectl inspects the first one it meets. */
function patchOpsFor(doc: Json, want: Json): Json[] {
  return Object.values(doc.paths as Json)
    .map((item: Json) => item.patch)
    .filter((op: Json | undefined) => op && JSON.stringify(op['x-kubernetes-group-version-kind']) === JSON.stringify(want));
}

/** Every `$ref` in a document. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => refs(v, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref') out.push(v as string);
      else refs(v, out);
    }
  }
  return out;
}

describe('OpenAPI v3', () => {
  const kinds = [configMaps(), namespaces(), leases()];

  it('indexes every group-version with the SHA-512 of the document it serves', () => {
    const { index, documents } = buildOpenapiV3(kinds);
    assert.deepEqual(Object.keys(index.paths), openapiV3Paths(kinds));
    assert.deepEqual(openapiV3Paths(kinds), ['api', 'api/v1', 'apis', 'apis/coordination.k8s.io', 'apis/coordination.k8s.io/v1']);
    const entry = documents.get('api/v1')!;
    const hash = createHash('sha512').update(entry.json).digest('hex').toUpperCase();
    assert.equal(index.paths['api/v1'].serverRelativeURL, `/openapi/v3/api/v1?hash=${hash}`);
    assert.deepEqual(openapiV3Index(kinds), index, 'the hash is stable across builds');
  });

  it('gives the ConfigMap PATCH operation fieldValidation and the kind GVK, as kubectl requires', () => {
    const doc = openapiV3Document([configMaps()], 'api/v1') as Json;
    assert.equal(doc.openapi, '3.0.0');
    const patch = doc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], gvk('', 'v1', 'ConfigMap'));
    assert.equal(patch['x-kubernetes-action'], 'patch');
    const names = patch.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => p.name);
    assert.deepEqual(names, ['dryRun', 'fieldManager', 'fieldValidation', 'force']);
    assert.ok(patch.requestBody.content['application/apply-patch+yaml']);
  });

  it('puts fieldValidation on every PATCH a kind has, /status included', () => {
    const doc = openapiV3Document(kinds, 'api/v1') as Json;
    const ops = patchOpsFor(doc, gvk('', 'v1', 'Namespace'));
    assert.equal(ops.length, 2);
    for (const op of ops) assert.ok(op.parameters.some((p: Json) => p.name === 'fieldValidation' && p.in === 'query'));
    for (const item of Object.values(doc.paths as Json)) {
      for (const method of ['post', 'put']) {
        if ((item as Json)[method]?.['x-kubernetes-group-version-kind']) {
          assert.ok((item as Json)[method].parameters.some((p: Json) => p.name === 'fieldValidation'));
        }
      }
    }
  });

  it('describes verbs, scopes and list parameters', () => {
    const doc = openapiV3Document(kinds, 'api/v1') as Json;
    assert.deepEqual(Object.keys(doc.paths), [
      '/api/v1/',
      '/api/v1/configmaps',
      '/api/v1/namespaces',
      '/api/v1/namespaces/{namespace}/configmaps',
      '/api/v1/namespaces/{namespace}/configmaps/{name}',
      '/api/v1/namespaces/{name}',
      '/api/v1/namespaces/{name}/finalize',
      '/api/v1/namespaces/{name}/status',
    ]);
    const list = doc.paths['/api/v1/namespaces/{namespace}/configmaps'].get;
    assert.equal(list['x-kubernetes-action'], 'list');
    assert.ok(list.parameters.some((p: Json) => p.name === 'watch' && p.schema.type === 'boolean'));
    assert.ok(list.responses['200'].content['application/json;stream=watch']);
    const collection = doc.paths['/api/v1/namespaces/{namespace}/configmaps'];
    assert.deepEqual(Object.keys(collection).sort(), ['delete', 'get', 'parameters', 'post']);
    assert.ok(collection.post.parameters.some((p: Json) => p.name === 'dryRun'));
    assert.equal(collection.delete['x-kubernetes-action'], 'deletecollection');
    const readOnly = defineKind({ ...configMaps(), verbs: ['get', 'list', 'watch'] });
    const roDoc = openapiV3Document([readOnly], 'api/v1') as Json;
    assert.equal(roDoc.paths['/api/v1/namespaces/{namespace}/configmaps/{name}'].patch, undefined);
  });

  it('describes every kind and every field of every served type (kubectl explain)', () => {
    const doc = openapiV3Document(builtinKinds, 'api/v1') as Json;
    const all = { ...doc.components.schemas } as Record<string, Json>;
    for (const kind of builtinKinds) {
      const gv = kind.group ? `apis/${kind.group}/${kind.version}` : 'api/v1';
      Object.assign(all, (openapiV3Document(builtinKinds, gv) as Json).components.schemas);
    }
    let fields = 0;
    for (const [name, schema] of Object.entries(all)) {
      if (schema.type !== 'object' || !schema.properties) continue;
      assert.ok(schema.description, `${name} has no description`);
      for (const [field, prop] of Object.entries(schema.properties as Record<string, Json>)) {
        assert.ok(typeof prop.description === 'string' && prop.description.length > 0, `${name}.${field} has no description`);
        fields++;
      }
    }
    assert.ok(fields > 200, `only ${fields} fields`);
    const fs = all['io.k8s.api.coordination.v1.LeaseSpec'];
    assert.equal(fs?.properties.leaseDurationSeconds.description, 'How long candidates wait after the last renewal before taking the lease.');
  });

  it('generates component schemas with kube-apiserver names and extensions', () => {
    const doc = openapiV3Document(kinds, 'api/v1') as Json;
    const schemas = doc.components.schemas;
    const cm = schemas['io.k8s.api.core.v1.ConfigMap'];
    assert.deepEqual(cm['x-kubernetes-group-version-kind'], [gvk('', 'v1', 'ConfigMap')]);
    assert.deepEqual(cm.properties.data, { description: 'String values by key.', type: 'object', additionalProperties: { type: 'string' } });
    // A described reference is wrapped in allOf, as upstream's v3 documents do.
    assert.deepEqual(cm.properties.metadata.allOf, [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }]);
    assert.match(cm.properties.metadata.description, /metadata/);
    const owners = schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'].properties.ownerReferences;
    assert.equal(owners['x-kubernetes-patch-strategy'], 'merge');
    assert.equal(owners['x-kubernetes-patch-merge-key'], 'uid');
    assert.equal(owners['x-kubernetes-list-type'], 'map');
    assert.deepEqual(owners['x-kubernetes-list-map-keys'], ['uid']);
    assert.deepEqual(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.Time'], { type: 'string', format: 'date-time' });
    assert.equal(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1']['x-kubernetes-preserve-unknown-fields'], true);
    assert.deepEqual(schemas['io.k8s.api.core.v1.ConfigMapList']['x-kubernetes-group-version-kind'], [gvk('', 'v1', 'ConfigMapList')]);
    for (const ref of refs(doc)) assert.ok(schemas[ref.replace('#/components/schemas/', '')], `dangling ${ref}`);
  });

  it('marks int-or-string values', () => {
    const deployments = defineKind({ group: 'apps', version: 'v1', kind: 'Deployment', plural: 'deployments',
      namespaced: true, schemaMessage: 'k8s.io.api.apps.v1.Deployment', subresources: [statusSubresource()] });
    const doc = openapiV3Document([deployments], 'apis/apps/v1') as Json;
    const ios = doc.components.schemas['io.k8s.apimachinery.pkg.util.intstr.IntOrString'];
    assert.equal(ios['x-kubernetes-int-or-string'], true);
    assert.equal(ios.format, 'int-or-string');
    const strategy = doc.components.schemas['io.k8s.api.apps.v1.DeploymentSpec'].properties.strategy;
    assert.equal(strategy['x-kubernetes-patch-strategy'], 'retainKeys');
  });

  it('has root documents and nothing for unknown paths', () => {
    assert.ok((openapiV3Document(kinds, 'apis') as Json).paths['/apis/']);
    assert.ok((openapiV3Document(kinds, 'apis/coordination.k8s.io') as Json).paths['/apis/coordination.k8s.io/']);
    assert.equal(openapiV3Document(kinds, 'apis/apps/v1'), undefined);
    assert.equal(openapiV3Document(kinds, 'nope'), undefined);
  });
});

describe('OpenAPI v2', () => {
  const kinds = [configMaps(), namespaces(), leases()];

  it('is a Swagger 2.0 document whose references all resolve', () => {
    const doc = openapiV2Document(kinds) as Json;
    assert.equal(doc.swagger, '2.0');
    const patch = doc.paths['/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases/{name}'].patch;
    assert.deepEqual(patch['x-kubernetes-group-version-kind'], gvk('coordination.k8s.io', 'v1', 'Lease'));
    assert.ok(patch.parameters.some((p: Json) => p.name === 'fieldValidation' && p.in === 'query' && p.type === 'string'));
    assert.deepEqual(doc.definitions['io.k8s.api.coordination.v1.Lease']['x-kubernetes-group-version-kind'],
      [gvk('coordination.k8s.io', 'v1', 'Lease')]);
    for (const ref of refs(doc)) assert.ok(doc.definitions[ref.replace('#/definitions/', '')], `dangling ${ref}`);
  });

  it('encodes to a gnostic openapi.v2.Document that decodes back with YAML vendor extensions', () => {
    const doc = openapiV2Document(kinds, { version: 'v1.34.0' });
    const decoded = decodeOpenapiV2Protobuf(encodeOpenapiV2Protobuf(doc)) as Json;
    assert.equal(decoded.swagger, '2.0');
    assert.equal(decoded.info.version, 'v1.34.0');
    const item = decoded.paths.path.find((p: Json) => p.name === '/api/v1/namespaces/{namespace}/configmaps/{name}');
    const ext = item.value.patch.vendor_extension.find((e: Json) => e.name === 'x-kubernetes-group-version-kind');
    assert.deepEqual(load(ext.value.yaml), gvk('', 'v1', 'ConfigMap'));
    const queryNames = item.value.patch.parameters
      .map((p: Json) => p.parameter?.non_body_parameter?.query_parameter_sub_schema?.name)
      .filter(Boolean);
    assert.ok(queryNames.includes('fieldValidation'));
    const body = item.value.patch.parameters.find((p: Json) => p.parameter?.body_parameter);
    assert.equal(body.parameter.body_parameter.schema._ref, '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch');
    const def = decoded.definitions.additional_properties.find((d: Json) => d.name === 'io.k8s.api.core.v1.ConfigMap');
    const defExt = def.value.vendor_extension.find((e: Json) => e.name === 'x-kubernetes-group-version-kind');
    assert.deepEqual(load(defExt.value.yaml), [gvk('', 'v1', 'ConfigMap')]);
    const data = def.value.properties.additional_properties.find((p: Json) => p.name === 'data');
    assert.deepEqual(data.value.type.value, ['object']);
    assert.deepEqual(data.value.additional_properties.schema.type.value, ['string']);
  });
});
