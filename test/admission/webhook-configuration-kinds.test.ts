import assert from 'node:assert/strict';
import { mutatingWebhookConfigurations } from '../../src/kinds/mutating-webhook-configuration.ts';
import { validatingWebhookConfigurations } from '../../src/kinds/validating-webhook-configuration.ts';
import { parseGoUrl } from '../../src/kinds/webhook-configuration-rules.ts';
import type { KubeObject } from '../../src/api/types.ts';
import { test } from 'node:test';
import { runKindSuite } from '../kinds/kind-suite.ts';

// Expectations from upstream's admissionregistration v1 defaults, validation (validation.go and
// pkg/util/webhook/validation.go), registry strategy and printers (1.34).

const rule = { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] };
const hook = (more: Record<string, unknown> = {}) => ({
  name: 'check.example.com',
  clientConfig: { url: 'https://127.0.0.1:8443/check' },
  rules: [rule],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...more,
});
const vwc = (...webhooks: Record<string, unknown>[]): KubeObject => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', webhooks });
const mwc = (...webhooks: Record<string, unknown>[]): KubeObject => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', webhooks });
const DNS1123 = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`;
const DNS1035 = `a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`;
const FORM = '; desired format: https://host[/path]';
const webhooksOf = (o: KubeObject) => o.webhooks as Record<string, any>[];

runKindSuite({
  kind: validatingWebhookConfigurations,
  valid: [
    { name: 'a URL webhook', object: vwc(hook()) },
    { name: 'a service webhook with a path', object: vwc(hook({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/a/b.c/' } } })) },
    { name: 'no webhooks at all', object: vwc() },
    { name: 'NoneOnDryRun, v1beta1 beside an unknown version, conditions', object: vwc(hook({ sideEffects: 'NoneOnDryRun', admissionReviewVersions: ['v2', 'v1beta1'], matchConditions: [{ name: 'not-system', expression: "!request.userInfo.username.startsWith('system:')" }] })) },
    { name: 'selectors, subresources, every operation, scope', object: vwc(hook({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], scope: 'Namespaced' }], namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }] }, objectSelector: { matchLabels: { app: 'web' } } })) },
  ],
  invalid: [
    {
      name: 'name, side effects, versions, client config missing',
      object: vwc({ name: 'short.name', rules: [rule] }),
      errors: [
        { field: 'webhooks[0].name', message: 'Invalid value: "short.name": should be a domain with at least three segments separated by dots' },
        { field: 'webhooks[0].sideEffects', message: 'Required value: must specify one of None, NoneOnDryRun' },
        { field: 'webhooks[0].clientConfig', message: 'Required value: exactly one of url or service is required' },
        { field: 'webhooks[0].admissionReviewVersions', message: 'Required value: must specify one of v1, v1beta1' },
      ],
    },
    {
      name: 'an empty name, an upper-case name',
      object: vwc(hook({ name: '' }), hook({ name: 'Check.Example.com' })),
      errors: [
        { field: 'webhooks[0].name', message: 'Required value' },
        { field: 'webhooks[1].name', message: `Invalid value: "Check.Example.com": ${DNS1123}` },
      ],
    },
    {
      name: 'duplicate webhook names',
      object: vwc(hook(), hook()),
      errors: [{ field: 'webhooks[1].name', message: 'Duplicate value: "check.example.com"' }],
    },
    {
      name: 'side effects Some, bad failure and match policy, timeout out of range',
      object: vwc(hook({ sideEffects: 'Some', failurePolicy: 'Maybe', matchPolicy: 'Fuzzy', timeoutSeconds: 31 })),
      errors: [
        { field: 'webhooks[0].failurePolicy', message: 'Unsupported value: "Maybe": supported values: "Fail", "Ignore"' },
        { field: 'webhooks[0].matchPolicy', message: 'Unsupported value: "Fuzzy": supported values: "Equivalent", "Exact"' },
        { field: 'webhooks[0].sideEffects', message: 'Unsupported value: "Some": supported values: "None", "NoneOnDryRun"' },
        { field: 'webhooks[0].timeoutSeconds', message: 'Invalid value: 31: the timeout value must be between 1 and 30 seconds' },
      ],
    },
    {
      name: 'a timeout of 0',
      object: vwc(hook({ timeoutSeconds: 0 })),
      errors: [{ field: 'webhooks[0].timeoutSeconds', message: 'Invalid value: 0: the timeout value must be between 1 and 30 seconds' }],
    },
    {
      name: 'both url and service',
      object: vwc(hook({ clientConfig: { url: 'https://a.example.com', service: { namespace: 'ns', name: 'svc' } } })),
      errors: [{ field: 'webhooks[0].clientConfig', message: 'Required value: exactly one of url or service is required' }],
    },
    {
      name: 'an http URL with user, query and fragment',
      object: vwc(hook({ clientConfig: { url: 'http://user:pw@example.com/x?a=b#frag' } })),
      errors: [
        { field: 'webhooks[0].clientConfig.url', message: `Invalid value: "http": 'https' is the only allowed URL scheme${FORM}` },
        { field: 'webhooks[0].clientConfig.url', message: 'Invalid value: "user:pw": user information is not permitted in the URL' },
        { field: 'webhooks[0].clientConfig.url', message: 'Invalid value: "frag": fragments are not permitted in the URL' },
        { field: 'webhooks[0].clientConfig.url', message: 'Invalid value: "a=b": query parameters are not permitted in the URL' },
      ],
    },
    {
      name: 'a URL without a host, one Go cannot parse',
      object: vwc(hook({ clientConfig: { url: 'https:///path' } }), hook({ name: 'b.example.com', clientConfig: { url: '://nothing' } })),
      errors: [
        { field: 'webhooks[0].clientConfig.url', message: `Invalid value: "": host must be specified${FORM}` },
        { field: 'webhooks[1].clientConfig.url', message: `Required value: url must be a valid URL: parse "://nothing": missing protocol scheme${FORM}` },
      ],
    },
    {
      name: 'a service without name and namespace, a bad port and path',
      object: vwc(hook({ clientConfig: { service: { port: 70000, path: 'x//Y' } } })),
      errors: [
        { field: 'webhooks[0].clientConfig.service.name', message: 'Required value' },
        { field: 'webhooks[0].clientConfig.service.namespace', message: 'Required value' },
        { field: 'webhooks[0].clientConfig.service.port', message: 'Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive' },
        { field: 'webhooks[0].clientConfig.service.path', message: `Invalid value: "x//Y": must start with a '/'` },
        { field: 'webhooks[0].clientConfig.service.path', message: 'Invalid value: "x//Y": segment[0] may not be empty' },
        { field: 'webhooks[0].clientConfig.service.path', message: 'Invalid value: "x//Y": segment[1] may not be empty' },
        { field: 'webhooks[0].clientConfig.service.path', message: `Invalid value: "x//Y": segment[2]: ${DNS1123}` },
      ],
    },
    {
      name: 'rules: no operations, bad operation, wildcards beside others, bad scope',
      object: vwc(hook({ rules: [{ operations: [], apiGroups: [], apiVersions: ['*', 'v1'], resources: [], scope: 'Everywhere' }, { operations: ['PATCH'], apiGroups: ['*', 'apps'], apiVersions: [''], resources: ['*/*', 'pods'] }] })),
      errors: [
        { field: 'webhooks[0].rules[0].operations', message: 'Required value' },
        { field: 'webhooks[0].rules[0].apiGroups', message: 'Required value' },
        { field: 'webhooks[0].rules[0].apiVersions', message: `Invalid value: ["*","v1"]: if '*' is present, must not specify other API versions` },
        { field: 'webhooks[0].rules[0].resources', message: 'Required value' },
        { field: 'webhooks[0].rules[0].scope', message: 'Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"' },
        { field: 'webhooks[0].rules[1].operations[0]', message: 'Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"' },
        { field: 'webhooks[0].rules[1].apiGroups', message: `Invalid value: ["*","apps"]: if '*' is present, must not specify other API groups` },
        { field: 'webhooks[0].rules[1].apiVersions[0]', message: 'Required value' },
        { field: 'webhooks[0].rules[1].resources', message: `Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources` },
      ],
    },
    {
      name: 'admission review versions: duplicate, not a label, none known',
      object: vwc(hook({ admissionReviewVersions: ['v2', 'v2', 'V3'] })),
      errors: [
        { field: 'webhooks[0].admissionReviewVersions[1]', message: 'Invalid value: "v2": duplicate version' },
        { field: 'webhooks[0].admissionReviewVersions[2]', message: `Invalid value: "V3": ${DNS1035}` },
        { field: 'webhooks[0].admissionReviewVersions', message: `Invalid value: ["v2","v2","V3"]: must include at least one of v1, v1beta1` },
      ],
    },
    {
      name: 'selectors',
      object: vwc(hook({ namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'In' }] }, objectSelector: { matchExpressions: [{ key: 'a', operator: 'Near', values: ['b'] }] } })),
      errors: [
        { field: 'webhooks[0].namespaceSelector.matchExpressions[0].values', message: "Required value: must be specified when `operator` is 'In' or 'NotIn'" },
        { field: 'webhooks[0].objectSelector.matchExpressions[0].operator', message: 'Invalid value: "Near": not a valid selector operator' },
      ],
    },
    {
      name: 'match conditions: too many, duplicate names, empty, params (webhooks have none)',
      object: vwc(
        hook({ name: 'a.example.com', matchConditions: [{ name: 'x', expression: 'true' }, { name: 'x', expression: 'true' }, { name: '', expression: '' }, { name: 'y', expression: 'params.x' }] }),
        hook({ name: 'b.example.com', matchConditions: Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' })) }),
      ),
      errors: [
        { field: 'webhooks[0].matchConditions[1].name', message: 'Duplicate value: "x"' },
        { field: 'webhooks[0].matchConditions[2].expression', message: 'Required value' },
        { field: 'webhooks[0].matchConditions[2].name', message: 'Required value' },
        { field: 'webhooks[0].matchConditions[3].expression', message: `Invalid value: "params.x": compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x\n | ^` },
        { field: 'webhooks[1].matchConditions', message: 'Too many: 65: must have at most 64 items' },
      ],
    },
  ],
  updates: [
    {
      name: 'generation moves with the webhooks only',
      object: vwc(hook()),
      change: (o) => ({ ...o, metadata: { ...o.metadata, labels: { a: 'b' } } }),
      expect: (o) => assert.equal(o.metadata?.generation, 1),
    },
    {
      name: 'a changed webhook bumps the generation',
      object: vwc(hook()),
      change: (o) => ({ ...o, webhooks: [{ ...webhooksOf(o)[0], timeoutSeconds: 5 }] }),
      expect: (o) => assert.equal(o.metadata?.generation, 2),
    },
    {
      name: 'an update is judged as strictly as a create when the stored object allows',
      object: vwc(hook()),
      change: (o) => ({ ...o, webhooks: [{ ...webhooksOf(o)[0], sideEffects: 'Unknown' }] }),
      errors: [{ field: 'webhooks[0].sideEffects', message: 'Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"' }],
    },
  ],
  defaults: [
    {
      name: 'v1 defaults: Fail, Equivalent, 10 s, empty selectors, every scope, port 443',
      object: vwc(hook({ clientConfig: { service: { namespace: 'ns', name: 'svc' } } })),
      expect: (o) => {
        const w = webhooksOf(o)[0]!;
        assert.equal(w.failurePolicy, 'Fail');
        assert.equal(w.matchPolicy, 'Equivalent');
        assert.equal(w.timeoutSeconds, 10);
        assert.deepEqual(w.namespaceSelector, {});
        assert.deepEqual(w.objectSelector, {});
        assert.equal(w.rules[0].scope, '*');
        assert.equal(w.clientConfig.service.port, 443);
        assert.equal(w.reinvocationPolicy, undefined);
        assert.equal(o.metadata?.generation, 1);
      },
    },
  ],
  columns: [{ name: 'the number of webhooks', object: vwc(hook(), hook({ name: 'other.example.com' })), cells: [2] }],
});

runKindSuite({
  kind: mutatingWebhookConfigurations,
  valid: [{ name: 'a mutating webhook that may be called again', object: mwc(hook({ reinvocationPolicy: 'IfNeeded' })) }],
  invalid: [
    {
      name: 'a bad reinvocation policy',
      object: mwc(hook({ reinvocationPolicy: 'Always' })),
      errors: [{ field: 'webhooks[0].reinvocationPolicy', message: 'Unsupported value: "Always": supported values: "IfNeeded", "Never"' }],
    },
    {
      name: 'duplicate names and side effects Unknown',
      object: mwc(hook(), hook({ sideEffects: 'Unknown' })),
      errors: [
        { field: 'webhooks[1].sideEffects', message: 'Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"' },
        { field: 'webhooks[1].name', message: 'Duplicate value: "check.example.com"' },
      ],
    },
  ],
  defaults: [
    {
      name: 'reinvocationPolicy Never besides the common defaults',
      object: mwc(hook()),
      expect: (o) => {
        const w = webhooksOf(o)[0]!;
        assert.equal(w.reinvocationPolicy, 'Never');
        assert.equal(w.failurePolicy, 'Fail');
        assert.equal(w.timeoutSeconds, 10);
      },
    },
  ],
  columns: [{ name: 'the number of webhooks', object: mwc(hook()), cells: [1] }],
});

test("Go's url.Parse errors, as the URL rule quotes them", () => {
  assert.deepEqual(parseGoUrl('https://example.com:8443/a%20b'), { scheme: 'https', host: 'example.com:8443', path: '/a b', rawQuery: '', fragment: '' });
  assert.deepEqual(parseGoUrl('https://exa mple.com'), { error: 'parse "https://exa mple.com": invalid character " " in host name' });
  assert.deepEqual(parseGoUrl('https://example.com:port'), { error: 'parse "https://example.com:port": invalid port ":port" after host' });
  assert.deepEqual(parseGoUrl('https://[::1'), { error: `parse "https://[::1": missing ']' in host` });
  assert.deepEqual(parseGoUrl('https://example.com/%zz'), { error: 'parse "https://example.com/%zz": invalid URL escape "%zz"' });
  assert.deepEqual(parseGoUrl('a:b\n'), { error: 'parse "a:b\\n": net/url: invalid control character in URL' });
  assert.deepEqual(parseGoUrl('1:x'), { error: 'parse "1:x": first path segment in URL cannot contain colon' });
});
