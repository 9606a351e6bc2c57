/**
 * customResourceKinds: the kinds a CRD serves, one per served version, with the names, scope, wire
 * formats, type schema and markers the generic machinery reads.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { customResourceKinds, customResourceReader } from '../../src/crd/serving/kinds.ts';
import type { ArraySchema, ObjectSchema } from '../../src/schema/type-schema.ts';
import { GROUP, widgetCrd } from './cr-fixtures.ts';

describe('customResourceKinds', () => {
  it('builds one kind per served version with the accepted names and the CRD recorded', () => {
    const crd = widgetCrd();
    const kinds = customResourceKinds(crd);
    assert.deepEqual(kinds.map((k) => k.version), ['v1', 'v1beta1']);
    const [v1] = kinds;
    assert.equal(v1!.group, GROUP);
    assert.equal(v1!.kind, 'Widget');
    assert.equal(v1!.plural, 'widgets');
    assert.equal(v1!.singular, 'widget');
    assert.deepEqual(v1!.shortNames, ['wd']);
    assert.deepEqual(v1!.categories, ['all', 'things']);
    assert.equal(v1!.namespaced, true);
    assert.deepEqual(v1!.wire, { protobuf: false, strategicMergePatch: false, cbor: true });
    assert.equal(v1!.customResource?.crd, crd);
    assert.equal(v1!.customResource?.version, 'v1');
    assert.equal(v1!.coreObjectMeta, false);
    assert.deepEqual(v1!.subresources.map((s) => s.name), ['status', 'scale']);
  });

  it('takes status.acceptedNames over spec.names, and spec.names when none are accepted', () => {
    const crd = widgetCrd();
    crd.status!.acceptedNames = { ...crd.spec!.names, plural: 'gadgets', kind: 'Gadget', singular: 'gadget', shortNames: [] };
    assert.equal(customResourceKinds(crd)[0]!.plural, 'gadgets');
    assert.equal(customResourceKinds(crd)[0]!.kind, 'Gadget');
    assert.equal(customResourceKinds(widgetCrd({ accepted: false }))[0]!.plural, 'widgets');
  });

  it('follows spec.scope', () => {
    assert.equal(customResourceKinds(widgetCrd({ scope: 'Cluster' }))[0]!.namespaced, false);
  });

  it('warns on deprecated versions with upstream default text, or the CRD own', () => {
    const crd = widgetCrd();
    assert.equal(customResourceKinds(crd)[1]!.deprecationWarning, `${GROUP}/v1beta1 Widget is deprecated; use ${GROUP}/v1 Widget`);
    assert.equal(customResourceKinds(crd)[0]!.deprecationWarning, undefined);
    crd.spec!.versions![1]!.deprecationWarning = 'v1beta1 goes away';
    assert.equal(customResourceKinds(crd)[1]!.deprecationWarning, 'v1beta1 goes away');
  });

  it('compiles the type schema: ObjectMeta, maps, int-or-string, list markers', () => {
    const schema = customResourceKinds(widgetCrd())[0]!.schema;
    assert.equal(schema.fields.get('metadata')!.schema.kind, 'object');
    assert.equal((schema.fields.get('metadata')!.schema as ObjectSchema).message, 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    const spec = schema.fields.get('spec')!.schema as ObjectSchema;
    assert.equal(spec.fields.get('size')!.schema.kind, 'int-or-string');
    assert.equal(spec.fields.get('labels')!.schema.kind, 'map');
    assert.equal(spec.fields.get('free')!.schema.kind, 'map');
    const ports = spec.fields.get('ports')!;
    assert.equal(ports.listType, 'map');
    assert.deepEqual(ports.listMapKeys, ['name']);
    assert.equal(((ports.schema as ArraySchema).items as ObjectSchema).fields.get('port')!.schema.kind, 'integer');
    assert.equal(spec.fields.get('tags')!.listType, 'set');
    const template = spec.fields.get('template')!.schema as ObjectSchema;
    assert.equal(template.typeMeta, true);
    assert.ok(template.fields.has('apiVersion') && template.fields.has('metadata'));
  });

  it('selects on selectableFields', () => {
    assert.deepEqual(customResourceKinds(widgetCrd())[0]!.fieldSelectors, { 'spec.color': ['spec', 'color'] });
  });

  it('reads stored objects as the storage codec does: pruned, defaulted, bad metadata fields dropped, generation repaired', () => {
    const kind = customResourceKinds(widgetCrd())[0]!;
    const read = customResourceReader({ ...kind })!;
    const stored = { apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name: 'old', labels: 'nope', annotations: { a: 'b' } }, spec: { replicas: 1, gone: true } };
    const out = read(stored as never) as Record<string, any>;
    assert.deepEqual(out.spec, { replicas: 1, color: 'blue' });
    assert.equal(out.metadata.labels, undefined);
    assert.deepEqual(out.metadata.annotations, { a: 'b' });
    assert.equal(out.metadata.generation, 1);
    assert.equal(stored.spec.gone, true, 'the stored object is not changed');
  });
});
