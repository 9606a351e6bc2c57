/**
 * The CustomResourceDefinition object's defaulting and validation, with upstream's paths and texts
 * (apiextensions-apiserver 1.34 pkg/apis/apiextensions/v1/defaults.go and
 * pkg/apis/apiextensions/validation/validation_test.go, for v1 objects after conversion).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText, type FieldError } from '../../src/api/errors.ts';
import {
  customResourceDefinitionUpdateWarnings,
  customResourceDefinitionWarnings,
  defaultCustomResourceDefinition,
  validateCustomResourceDefinition,
  validateCustomResourceDefinitionUpdate,
  type CustomResourceDefinition,
} from '../../src/crd/validation/index.ts';

const text = (e: FieldError) => `${e.field}: ${fieldErrorText(e)}`;
const SCHEMA = { type: 'object', properties: { spec: { type: 'object', properties: { replicas: { type: 'integer' } } }, status: { type: 'object', properties: { replicas: { type: 'integer' } } } } };

function valid(): CustomResourceDefinition {
  return defaultCustomResourceDefinition({
    metadata: { name: 'plural.group.com' },
    spec: {
      group: 'group.com',
      scope: 'Namespaced',
      names: { plural: 'plural', kind: 'Plural' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: structuredClone(SCHEMA) } }],
    },
  });
}
const errorsOf = (crd: CustomResourceDefinition) => validateCustomResourceDefinition(crd).map(text);
const established = (crd: CustomResourceDefinition) => {
  crd.status!.conditions = [{ type: 'Established', status: 'True' }];
  return crd;
};

describe('defaulting', () => {
  it('defaults names, conversion, preserveUnknownFields and storedVersions', () => {
    const crd = valid();
    assert.equal(crd.spec!.names!.singular, 'plural');
    assert.equal(crd.spec!.names!.listKind, 'PluralList');
    assert.deepEqual(crd.spec!.conversion, { strategy: 'None' });
    assert.equal(crd.spec!.preserveUnknownFields, false);
    assert.deepEqual(crd.status!.storedVersions, ['v1']);
  });
  it('defaults a webhook service port to 443 and keeps given values', () => {
    const crd = defaultCustomResourceDefinition({ spec: { names: { kind: 'Foo', singular: 'bar', listKind: 'Foos' }, conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 's', namespace: 'n' } } } } } });
    assert.equal(crd.spec!.conversion!.webhook!.clientConfig!.service!.port, 443);
    assert.equal(crd.spec!.names!.singular, 'bar');
    assert.equal(crd.spec!.names!.listKind, 'Foos');
  });
});

describe('create validation', () => {
  it('accepts a valid CRD', () => assert.deepEqual(errorsOf(valid()), []));

  it('requires metadata.name to be <plural>.<group>', () => {
    const crd = valid();
    crd.metadata!.name = 'other.group.com';
    assert.deepEqual(errorsOf(crd), ['metadata.name: Invalid value: "other.group.com": must be spec.names.plural+"."+spec.group']);
  });

  it('requires a group with a dot, and a known scope', () => {
    const crd = valid();
    crd.spec!.group = 'group';
    crd.metadata!.name = 'plural.group';
    crd.spec!.scope = 'Global';
    assert.deepEqual(errorsOf(crd), ['spec.group: Invalid value: "group": should be a domain with at least one dot', 'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"']);
    crd.spec!.group = '';
    crd.spec!.scope = '';
    crd.metadata!.name = 'plural.';
    assert.deepEqual(errorsOf(crd).slice(0, 2), ['spec.group: Required value', 'spec.scope: Required value']);
  });

  it('requires exactly one storage version, unique DNS-1035 names', () => {
    const crd = valid();
    crd.spec!.versions!.push({ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: structuredClone(SCHEMA) } }, { name: 'V2', served: false, storage: false, schema: { openAPIV3Schema: { type: 'object' } } });
    const errs = validateCustomResourceDefinition(crd);
    assert.deepEqual(
      errs.map((e) => `${e.field}: ${e.detail}`),
      [
        "spec.versions[2].name: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
        'spec.versions: must contain unique version names',
        'spec.versions: must have exactly one version marked as storage version',
        // The second storage-flagged v1 finds its name already taken off the stored list.
        'status.storedVersions: must have the storage version v1',
      ],
    );
    // The versions print as upstream's internal structs.
    assert.match(fieldErrorText(errs[1]!), /^Invalid value: \[\{"Name":"v1","Served":true,"Storage":true,"Deprecated":false,"DeprecationWarning":null,"Schema":\{"OpenAPIV3Schema":\{"ID":""/);
  });

  it('refuses a storage version missing from storedVersions and stored versions no longer listed', () => {
    const crd = valid();
    crd.status!.storedVersions = ['v0'];
    assert.deepEqual(errorsOf(crd), [
      'status.storedVersions: Invalid value: ["v0"]: must have the storage version v1',
      'status.storedVersions[0]: Invalid value: "v0": missing from spec.versions; v0 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v0 and removes v0 from status.storedVersions',
    ]);
    crd.status!.storedVersions = [];
    assert.deepEqual(errorsOf(crd), ['status.storedVersions: Invalid value: []: must have at least one stored version']);
  });

  it('checks names: required, DNS-1035, mixed-case kinds, kind != listKind', () => {
    const crd = valid();
    crd.spec!.names = { plural: 'plural', singular: 'Sing', kind: 'Plural', listKind: 'Plural', shortNames: ['a_b'], categories: ['all', 'B'] };
    const errs = errorsOf(crd);
    assert.ok(errs[0]!.startsWith('spec.names.singular: Invalid value: "Sing": a DNS-1035 label'));
    assert.ok(errs[1]!.startsWith('spec.names.shortNames[0]: Invalid value: "a_b": a DNS-1035 label'));
    assert.equal(errs[2], 'spec.names.listKind: Invalid value: "Plural": kind and listKind may not be the same');
    assert.ok(errs[3]!.startsWith('spec.names.categories[1]: Invalid value: "B"'));
    crd.spec!.names = { plural: 'plural', singular: 'plural', kind: 'Bad_Kind', listKind: 'BadKindList' };
    assert.ok(errorsOf(crd)[0]!.startsWith('spec.names.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label'));
    crd.spec!.names = { plural: 'plural' };
    assert.deepEqual(errorsOf(crd), ['spec.names.singular: Required value', 'spec.names.kind: Required value', 'spec.names.listKind: Required value']);
  });

  it('requires a schema per version', () => {
    const crd = valid();
    delete crd.spec!.versions![0]!.schema;
    assert.deepEqual(errorsOf(crd), ['spec.versions[0].schema.openAPIV3Schema: Required value']);
  });

  it('reports a schema shared by all versions under spec.validation, a per-version one under its version', () => {
    const crd = valid();
    crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!.spec = {};
    assert.deepEqual(errorsOf(crd), ['spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
    crd.spec!.versions!.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: structuredClone(SCHEMA) } });
    assert.deepEqual(errorsOf(crd), ['spec.versions[0].schema.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields']);
  });

  it('validates deprecation warnings', () => {
    const crd = valid();
    crd.spec!.versions![0]!.deprecationWarning = 'x';
    assert.deepEqual(errorsOf(crd), ['spec.versions[0].deprecationWarning: Invalid value: "x": can only be set for deprecated versions']);
    crd.spec!.versions![0]!.deprecated = true;
    crd.spec!.versions![0]!.deprecationWarning = 'a'.repeat(257);
    assert.deepEqual(errorsOf(crd), [`spec.versions[0].deprecationWarning: Invalid value: "${'a'.repeat(257)}": must be <= 256 characters long`]);
    crd.spec!.versions![0]!.deprecationWarning = '';
    assert.deepEqual(errorsOf(crd), ['spec.versions[0].deprecationWarning: Invalid value: "": must not be an empty string']);
    crd.spec!.versions![0]!.deprecationWarning = 'ab\tc';
    assert.deepEqual(errorsOf(crd), ['spec.versions[0].deprecationWarning: Invalid value: "ab\\tc": must only contain printable UTF-8 characters; non-printable character found at index 2']);
    crd.spec!.versions![0]!.deprecationWarning = 'example.com/v1 Widget is deprecated; use v2';
    assert.deepEqual(errorsOf(crd), []);
  });

  it('validates the scale subresource paths', () => {
    const crd = valid();
    crd.spec!.versions![0]!.subresources = { status: {}, scale: { specReplicasPath: 'spec.replicas', statusReplicasPath: '.spec.replicas', labelSelectorPath: '.metadata.labels' } };
    assert.deepEqual(errorsOf(crd), [
      'spec.subresources.scale.specReplicasPath: Invalid value: "spec.replicas": must be a simple json path starting with .',
      'spec.subresources.scale.statusReplicasPath: Invalid value: ".spec.replicas": should be a json path under .status',
      'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.labels": should be a json path under either .spec or .status',
    ]);
    crd.spec!.versions![0]!.subresources = { scale: {} };
    assert.deepEqual(errorsOf(crd), ['spec.subresources.scale.specReplicasPath: Required value', 'spec.subresources.scale.statusReplicasPath: Required value']);
  });

  it('only allows some keywords at a status-enabled schema root', () => {
    const crd = valid();
    crd.spec!.versions![0]!.subresources = { status: {} };
    crd.spec!.versions![0]!.schema!.openAPIV3Schema!.type = 'object';
    (crd.spec!.versions![0]!.schema!.openAPIV3Schema as Record<string, unknown>).minProperties = 1;
    assert.match(errorsOf(crd)[0]!, /^spec\.validation\.openAPIV3Schema: Invalid value: \{.*\}: only \[Description Type .*\] fields are allowed at the root of the schema if the status subresource is enabled$/);
  });

  it('validates printer columns', () => {
    const crd = valid();
    crd.spec!.versions![0]!.additionalPrinterColumns = [{ name: '', type: 'bool', format: 'uint', jsonPath: 'spec' }, { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
    assert.deepEqual(errorsOf(crd), [
      'spec.additionalPrinterColumns[0].name: Required value',
      'spec.additionalPrinterColumns[0].type: Invalid value: "bool": must be one of boolean,date,integer,number,string',
      'spec.additionalPrinterColumns[0].format: Invalid value: "uint": must be one of byte,date,date-time,double,float,int32,int64,password',
      'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec": must be a simple json path starting with .',
    ]);
    crd.spec!.versions![0]!.additionalPrinterColumns = [{ name: 'x' }];
    assert.deepEqual(errorsOf(crd), ['spec.additionalPrinterColumns[0].type: Required value: must be one of boolean,date,integer,number,string', 'spec.additionalPrinterColumns[0].JSONPath: Required value']);
  });

  it('validates selectable fields against the schema', () => {
    const crd = valid();
    crd.spec!.versions![0]!.selectableFields = [{ jsonPath: '.spec.replicas' }, { jsonPath: '.spec.nope' }, { jsonPath: '.spec' }];
    assert.deepEqual(errorsOf(crd), [
      'spec.selectableFields[1].jsonPath: Invalid value: ".spec.nope": is an invalid path: does not refer to a valid field',
      'spec.selectableFields[2].jsonPath: Invalid value: ".spec": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.',
    ]);
  });

  it('validates webhook conversion', () => {
    const crd = valid();
    crd.spec!.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://example.com/convert?x=1' }, conversionReviewVersions: ['v3', 'v3'] } };
    assert.deepEqual(errorsOf(crd), [
      `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'spec.conversion.webhookClientConfig.url: Invalid value: "x=1": query parameters are not permitted in the URL',
      'spec.conversion.conversionReviewVersions[1]: Invalid value: "v3": duplicate version',
      'spec.conversion.conversionReviewVersions: Invalid value: ["v3","v3"]: must include at least one of v1, v1beta1',
    ]);
    crd.spec!.conversion = { strategy: 'Webhook', webhook: { clientConfig: {} } };
    assert.deepEqual(errorsOf(crd), ['spec.conversion.webhookClientConfig: Required value: exactly one of url or service is required', 'spec.conversion.conversionReviewVersions: Required value']);
    crd.spec!.conversion = { strategy: 'Webhook' };
    assert.deepEqual(errorsOf(crd), ['spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook', 'spec.conversion.conversionReviewVersions: Required value']);
    crd.spec!.conversion = { strategy: 'None', webhook: { clientConfig: { url: 'https://x' }, conversionReviewVersions: ['v1'] } };
    assert.deepEqual(errorsOf(crd), [
      'spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook',
      'spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook',
    ]);
    crd.spec!.conversion = { strategy: 'Magic' };
    assert.deepEqual(errorsOf(crd), ['spec.conversion.strategy: Unsupported value: "Magic": supported values: "None", "Webhook"']);
    crd.spec!.conversion = defaultCustomResourceDefinition({ spec: { conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 's', namespace: 'ns', path: 'convert' } }, conversionReviewVersions: ['v1'] } } } }).spec!.conversion!;
    assert.deepEqual(errorsOf(crd), [`spec.conversion.webhookClientConfig.service.path: Invalid value: "convert": must start with a '/'`]);
  });

  it('refuses preserveUnknownFields: true, and webhook conversion with it', () => {
    const crd = valid();
    crd.spec!.preserveUnknownFields = true;
    crd.spec!.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x' }, conversionReviewVersions: ['v1'] } };
    assert.deepEqual(errorsOf(crd), [
      'spec.conversion.strategy: Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true',
      'spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead',
    ]);
  });

  it('requires the API approval annotation in protected groups', () => {
    const crd = valid();
    crd.spec!.group = 'apps.k8s.io';
    crd.metadata!.name = 'plural.apps.k8s.io';
    assert.deepEqual(errorsOf(crd), ['metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111']);
    crd.metadata!.annotations = { 'api-approved.kubernetes.io': 'no' };
    assert.deepEqual(errorsOf(crd), [
      'metadata.annotations[api-approved.kubernetes.io]: Invalid value: "no": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ]);
    crd.metadata!.annotations = { 'api-approved.kubernetes.io': 'unapproved, testing' };
    assert.deepEqual(errorsOf(crd), []);
  });

  it('compiles x-kubernetes-validations rules', () => {
    const crd = valid();
    crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!.spec!['x-kubernetes-validations'] = [{ rule: 'self.replicas >' }];
    const errs = errorsOf(crd);
    assert.equal(errs.length, 1);
    assert.match(errs[0]!, /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: .*compilation failed: ERROR: <input>:1:16/);
    crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!.spec!['x-kubernetes-validations'] = [{ rule: 'self.replicas >= 0', message: 'a\nb' }];
    assert.deepEqual(errorsOf(crd), ['spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].message: Invalid value: "a\\nb": must not contain line breaks']);
  });

  it('checks defaults against the rules', () => {
    const crd = valid();
    const spec = crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!.spec!;
    spec.properties!.replicas = { type: 'integer', default: -1, 'x-kubernetes-validations': [{ rule: 'self >= 0', message: 'must not be negative' }] };
    assert.deepEqual(errorsOf(crd), ['spec.validation.openAPIV3Schema.properties[spec].properties[replicas].default: Invalid value: "integer": must not be negative']);
  });

  it('warns about unrecognized formats (on update only new ones)', () => {
    const crd = valid();
    crd.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!.spec!.properties!.name = { type: 'string', format: 'fancy' };
    assert.deepEqual(customResourceDefinitionWarnings(crd), ['unrecognized format "fancy"']);
    assert.deepEqual(customResourceDefinitionUpdateWarnings(crd, crd), []);
    assert.deepEqual(customResourceDefinitionUpdateWarnings(crd, valid()), ['unrecognized format "fancy"']);
  });
});

describe('update validation', () => {
  it('keeps group and plural immutable, scope and kind once established', () => {
    const old = valid();
    const next = valid();
    next.spec!.scope = 'Cluster';
    next.spec!.names!.kind = 'Other';
    assert.deepEqual(validateCustomResourceDefinitionUpdate(next, old).map(text), []);
    assert.deepEqual(validateCustomResourceDefinitionUpdate(next, established(old)).map(text), ['spec.scope: Invalid value: "Cluster": field is immutable', 'spec.names.kind: Invalid value: "Other": field is immutable']);
    const renamed = valid();
    renamed.spec!.group = 'other.com';
    renamed.spec!.names!.plural = 'others';
    renamed.metadata!.name = 'others.other.com';
    assert.deepEqual(validateCustomResourceDefinitionUpdate(renamed, valid()).map(text), ['spec.group: Invalid value: "other.com": field is immutable', 'spec.names.plural: Invalid value: "others": field is immutable']);
  });

  it('keeps accepting what a stored CRD already had (ratchets)', () => {
    const old = valid();
    old.spec!.versions![0]!.schema!.openAPIV3Schema!.properties!.spec = {};
    delete old.spec!.versions![0]!.schema;
    old.spec!.versions!.push({ name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: structuredClone(SCHEMA) } });
    const next = structuredClone(old);
    // A version without a schema stays allowed when the stored CRD already had one.
    assert.deepEqual(validateCustomResourceDefinitionUpdate(next, old).map(text), ['spec.versions[0].schema.openAPIV3Schema: Required value: because otherwise all fields are pruned']);
    next.spec!.versions![0]!.served = false;
    assert.deepEqual(validateCustomResourceDefinitionUpdate(next, old).map(text), []);
    assert.deepEqual(validateCustomResourceDefinition(next).map(text), ['spec.versions[0].schema.openAPIV3Schema: Required value']);
  });

  it('lets a stored preserveUnknownFields: true stay', () => {
    const old = valid();
    old.spec!.preserveUnknownFields = true;
    const next = structuredClone(old);
    assert.deepEqual(validateCustomResourceDefinitionUpdate(next, old).map(text), []);
    assert.equal(validateCustomResourceDefinitionUpdate(next, valid()).length, 1);
  });

  it('keeps accepting unrecognized conversion review versions a stored CRD had', () => {
    const old = valid();
    old.spec!.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x' }, conversionReviewVersions: ['v9'] } };
    assert.deepEqual(validateCustomResourceDefinitionUpdate(structuredClone(old), old).map(text), []);
    assert.deepEqual(errorsOf(old), ['spec.conversion.conversionReviewVersions: Invalid value: ["v9"]: must include at least one of v1, v1beta1']);
  });

  it('checks the CA bundle only on updates of an established CRD whose bundle was valid', () => {
    const bad = Buffer.from('nope').toString('base64');
    const old = established(valid());
    old.spec!.conversion = { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x' }, conversionReviewVersions: ['v1'] } };
    const next = structuredClone(old);
    next.spec!.conversion!.webhook!.clientConfig!.caBundle = bad;
    assert.deepEqual(validateCustomResourceDefinitionUpdate(next, old).map(text), [`spec.conversion.webhookClientConfig.caBundle: Invalid value: "${bad}": unable to load root certificates: unable to parse bytes as PEM block`]);
    assert.deepEqual(errorsOf(next), []);
  });
});
