import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/types.ts';
import { customResourceDefinitions } from '../../src/kinds/custom-resource-definition.ts';
import { certificateCrd, openSchema, simpleCrd, specOf, statusOf, twoVersionCrd } from './custom-resource-definition-fixtures.ts';
import { runKindSuite } from './kind-suite.ts';

type Json = Record<string, unknown>;

/** A version as field.Invalid prints apiextensions' internal CustomResourceDefinitionVersion. */
const internalVersion = (name: string) =>
  `{"Name":"${name}","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":null,"Subresources":null,"AdditionalPrinterColumns":null,"SelectableFields":null}`;
const DNS1035 = `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`;

const withVersions = (crd: KubeObject, versions: Json[]) => {
  specOf(crd).versions = versions;
  return crd;
};

// Expectations from apiextensions-apiserver's ValidateCustomResourceDefinition(Update|StatusUpdate),
// the v1 defaults and the CRD strategy (1.34).
runKindSuite({
  kind: customResourceDefinitions,
  valid: [
    { name: 'a cert-manager-like Certificate: status and scale subresources, printer columns, CEL, defaults', object: certificateCrd() },
    { name: 'two versions, one deprecated', object: twoVersionCrd() },
    // apimachinery's ObjectMeta rules, not the core group's: a finalizer needs no domain.
    { name: 'a finalizer without a domain', object: simpleCrd('finalized', 'example.com', 'Finalized', { meta: { finalizers: ['cleanup'] } }) },
    { name: 'a cluster-scoped CRD with selectable fields', object: simpleCrd('clusterthings', 'things.example.com', 'ClusterThing', { spec: { scope: 'Cluster' }, version: { selectableFields: [{ jsonPath: '.spec.color' }], schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { color: { type: 'string' } } } } } } } }) },
    {
      name: 'a webhook conversion',
      object: simpleCrd('converted', 'conv.example.com', 'Converted', {
        spec: { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'default', name: 'conv', path: '/convert' } } } } },
      }),
    },
    {
      name: 'free JSON and doubles: a nullable enum with null, default, example, bounds, int-or-string, additionalProperties',
      object: simpleCrd('unions', 'unions.example.com', 'Union', {
        version: {
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    labels: { type: 'object', additionalProperties: { type: 'string' } },
                    mode: { type: 'string', nullable: true, enum: ['a', 'b', null], default: 'a', example: 'b' },
                    ratio: { type: 'number', minimum: 0.5, maximum: 2.5, exclusiveMaximum: true, multipleOf: 0.5 },
                    port: { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] },
                  },
                },
              },
            },
          },
        },
      }),
    },
  ],
  invalid: [
    {
      name: 'a name that is not <plural>.<group>',
      object: simpleCrd('foos', 'example.com', 'Foo', { meta: { name: 'bars.example.com' } }),
      errors: [{ field: 'metadata.name', message: 'Invalid value: "bars.example.com": must be spec.names.plural+"."+spec.group' }],
    },
    {
      name: 'two storage versions',
      object: withVersions(simpleCrd('twostores', 'example.com', 'TwoStore'), [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: openSchema() } },
        { name: 'v2', served: true, storage: true, schema: { openAPIV3Schema: openSchema() } },
      ]),
      errors: [
        // One schema for all versions moves to spec.validation in the internal form, so each version's Schema is nil.
        { field: 'spec.versions', message: `Invalid value: [${internalVersion('v1')},${internalVersion('v2')}]: must have exactly one version marked as storage version` },
        { field: 'status.storedVersions', message: 'Invalid value: ["v1"]: must have the storage version v2' },
      ],
    },
    {
      name: 'a non-structural schema (a property without a type)',
      object: simpleCrd('untyped', 'example.com', 'Untyped', { version: { schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: { a: { type: 'string' } } } } } } } }),
      // A schema shared by every version is judged as the internal spec.validation.
      errors: [{ field: 'spec.validation.openAPIV3Schema.properties[spec].type', message: 'Required value: must not be empty for specified object fields' }],
    },
    {
      name: 'a CEL rule that does not compile',
      object: simpleCrd('badrules', 'example.com', 'BadRule', {
        version: { schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.nope == 1' }], properties: { a: { type: 'string' } } } } } } },
      }),
      errors: [
        {
          field: 'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
          message: `Invalid value: apiextensions.ValidationRule{Rule:"self.nope == 1", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^`,
        },
      ],
    },
    {
      name: 'a version without a schema, names and scope missing',
      object: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'nothings.example.com' }, spec: { group: 'example.com', names: { plural: 'nothings' }, versions: [{ name: 'v1', served: true, storage: true }] } },
      errors: [
        { field: 'spec.scope', message: 'Required value' },
        { field: 'spec.versions[0].schema.openAPIV3Schema', message: 'Required value' },
        { field: 'spec.names.singular', message: 'Required value' },
        { field: 'spec.names.kind', message: 'Required value' },
        { field: 'spec.names.listKind', message: 'Required value' },
      ],
    },
    {
      name: 'preserveUnknownFields true',
      object: simpleCrd('preserved', 'example.com', 'Preserved', { spec: { preserveUnknownFields: true } }),
      errors: [{ field: 'spec.preserveUnknownFields', message: 'Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead' }],
    },
    {
      name: 'a protected group without the approval annotation',
      object: simpleCrd('things', 'things.k8s.io', 'Thing'),
      errors: [{ field: 'metadata.annotations[api-approved.kubernetes.io]', message: 'Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111' }],
    },
  ],
  defaults: [
    {
      name: 'singular, listKind, conversion and preserveUnknownFields are defaulted; status holds the storage version',
      object: (() => {
        const crd = simpleCrd('gadgets', 'example.com', 'Gadget');
        const names = specOf(crd).names;
        delete names.singular;
        delete names.listKind;
        return crd;
      })(),
      expect: (o) => {
        assert.deepEqual(specOf(o).names, { plural: 'gadgets', kind: 'Gadget', singular: 'gadget', listKind: 'GadgetList' });
        assert.deepEqual(specOf(o).conversion, { strategy: 'None' });
        assert.equal(specOf(o).preserveUnknownFields, false);
        assert.deepEqual(statusOf(o).storedVersions, ['v1']);
        assert.deepEqual(statusOf(o).acceptedNames, { plural: '', kind: '' });
        assert.equal(o.metadata?.generation, 1);
      },
    },
    {
      name: 'a webhook service port defaults to 443',
      object: simpleCrd('ported', 'ports.example.com', 'Ported', {
        spec: { conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { service: { namespace: 'default', name: 'conv' } } } } },
      }),
      expect: (o) => assert.equal(((specOf(o).conversion as Json).webhook as { clientConfig: { service: Json } }).clientConfig.service.port, 443),
    },
    {
      name: 'a create clears the status it is given but for the storage version',
      object: {
        ...simpleCrd('statused', 'example.com', 'Statused'),
        status: { storedVersions: ['v0', 'v1'], conditions: [{ type: 'Established', status: 'True' }], acceptedNames: { plural: 'x', kind: 'X' } },
      },
      expect: (o) => assert.deepEqual(o.status, { acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] }),
    },
    {
      name: 'unknown keys inside items and additionalProperties schemas are dropped, as their lenient Go decoding drops them',
      object: simpleCrd('lenients', 'example.com', 'Lenient', {
        version: {
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  properties: {
                    list: { type: 'array', items: { type: 'object', typo: 1, properties: { a: { type: 'string', deeper: true } } } },
                    map: { type: 'object', additionalProperties: { type: 'string', typo: 'x' } },
                    free: { type: 'object', additionalProperties: true },
                    odd: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, default: { typo: 'kept', nested: { any: 1 } } },
                  },
                },
              },
            },
          },
        },
      }),
      expect: (o) => {
        const props = (((specOf(o).versions[0]!.schema as Json).openAPIV3Schema as Json).properties as { spec: { properties: Json } }).spec.properties;
        assert.deepEqual(props.list, { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } } } });
        assert.deepEqual(props.map, { type: 'object', additionalProperties: { type: 'string' } });
        assert.deepEqual(props.free, { type: 'object', additionalProperties: true });
        // default is free JSON: nothing in it is judged as a schema.
        assert.deepEqual(props.odd, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, default: { typo: 'kept', nested: { any: 1 } } });
      },
    },
    {
      name: 'zero values Go leaves out (omitempty, not pointers) are not kept; pointer zeros are',
      object: simpleCrd('zeros', 'example.com', 'Zero', {
        version: {
          deprecated: false,
          additionalPrinterColumns: [{ name: 'A', type: 'string', jsonPath: '.spec.a', priority: 0, format: '', description: '' }],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: '',
              nullable: false,
              required: [],
              properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string', uniqueItems: false, minLength: 0 } } } },
            },
          },
        },
      }),
      expect: (o) => {
        const version = specOf(o).versions[0]!;
        assert.equal(version.deprecated, undefined);
        assert.deepEqual(version.additionalPrinterColumns, [{ name: 'A', type: 'string', jsonPath: '.spec.a' }]);
        assert.deepEqual((version.schema as Json).openAPIV3Schema, {
          type: 'object',
          properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { a: { type: 'string', minLength: 0 } } } },
        });
      },
    },
  ],
  updates: [
    {
      name: 'a new storage version is added to storedVersions and the generation moves',
      object: twoVersionCrd('sprockets', 'stable.example.com', 'Sprocket'),
      change: (o) => {
        const [beta, ga] = specOf(o).versions as Json[];
        beta!.storage = false;
        ga!.storage = true;
        return o;
      },
      expect: (o) => {
        assert.deepEqual(statusOf(o).storedVersions, ['v1beta1', 'v1']);
        assert.equal(o.metadata?.generation, 2);
      },
    },
    {
      name: 'a label change keeps the generation',
      object: simpleCrd('labelled', 'example.com', 'Labelled'),
      change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'b' } } }),
      expect: (o) => assert.equal(o.metadata?.generation, 1),
    },
    {
      name: 'status sent to the main resource is ignored',
      object: simpleCrd('ignored', 'example.com', 'Ignored'),
      change: (o) => ({ ...o, status: { ...statusOf(o), storedVersions: ['v1', 'v0'] } }),
      expect: (o) => assert.deepEqual(statusOf(o).storedVersions, ['v1']),
    },
    {
      name: 'group and plural are immutable, and a version still stored may not go',
      object: twoVersionCrd('movers', 'move.example.com', 'Mover'),
      change: (o) => {
        const spec = specOf(o);
        spec.group = 'moved.example.com';
        spec.versions = [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: openSchema() } }];
        return o;
      },
      errors: [
        { field: 'metadata.name', message: 'Invalid value: "movers.move.example.com": must be spec.names.plural+"."+spec.group' },
        { field: 'spec.group', message: 'Invalid value: "moved.example.com": field is immutable' },
        {
          field: 'status.storedVersions[0]',
          message:
            'Invalid value: "v1beta1": missing from spec.versions; v1beta1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1beta1 and removes v1beta1 from status.storedVersions',
        },
      ],
    },
  ],
  statusUpdates: [
    {
      name: 'conditions, accepted names and stored versions are written; the spec stays',
      object: twoVersionCrd('statuses', 'status.example.com', 'Status'),
      change: (o) => {
        specOf(o).group = 'other.example.com';
        o.status = {
          conditions: [{ type: 'Established', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }],
          acceptedNames: { plural: 'statuses', singular: 'status', kind: 'Status', listKind: 'StatusList' },
          storedVersions: ['v1beta1'],
        };
        return o;
      },
      expect: (o) => {
        assert.equal(specOf(o).group, 'status.example.com');
        assert.equal(statusOf(o).acceptedNames!.kind, 'Status');
        assert.equal(statusOf(o).conditions!.length, 1);
        assert.equal(o.metadata?.generation, 1);
      },
    },
    {
      name: 'accepted names are validated (stored versions are not, through status)',
      object: simpleCrd('badstatuses', 'status.example.com', 'BadStatus'),
      change: (o) => {
        o.status = { acceptedNames: { plural: 'Bad_Plural', kind: 'bad kind' }, storedVersions: ['v2'] };
        return o;
      },
      errors: [
        { field: 'status.acceptedNames.plural', message: `Invalid value: "Bad_Plural": ${DNS1035}` },
        { field: 'status.acceptedNames.kind', message: `Invalid value: "bad kind": may have mixed case, but should otherwise match: ${DNS1035}` },
      ],
    },
  ],
});
