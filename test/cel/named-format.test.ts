import assert from 'node:assert/strict';
import { test } from 'node:test';
import { value } from './helpers.ts';

const LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const DNS1035 = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

// Cases of Kubernetes' library/format_test.go (1.34): validate() is optional.none() for a valid
// value, else optional.of(the errors).
const RESULTS: [string, string[] | null][] = [
  [`format.dns1123Label().validate("my-label-name")`, null],
  [`format.dns1123Subdomain().validate("apiextensions.k8s.io")`, null],
  [`format.qualifiedName().validate("apiextensions.k8s.io/v1beta1")`, null],
  [`format.dns1123LabelPrefix().validate("my-label-prefix-")`, null],
  [`format.dns1123SubdomainPrefix().validate("mysubdomain.prefix.-")`, null],
  [`format.dns1035LabelPrefix().validate("my-label-prefix-")`, null],
  [`format.uri().validate("http://example.com")`, null],
  [`format.uuid().validate("123e4567-e89b-12d3-a456-426614174000")`, null],
  [`format.byte().validate("aGVsbG8=")`, null],
  [`format.date().validate("2021-01-01")`, null],
  [`format.datetime().validate("2021-01-01T00:00:00Z")`, null],
  [`format.dns1123Label().validate("contains a space")`, [LABEL]],
  [`format.dns1123Subdomain().validate("contains a space")`, [SUBDOMAIN]],
  [`format.dns1035Label().validate("contains a space")`, [DNS1035]],
  [
    `format.qualifiedName().validate("contains a space")`,
    ["name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"],
  ],
  [`format.dns1123LabelPrefix().validate("contains a space-")`, [LABEL]],
  [`format.dns1123SubdomainPrefix().validate("contains a space-")`, [SUBDOMAIN]],
  [`format.dns1035LabelPrefix().validate("contains a space-")`, [DNS1035]],
  [`format.dns1123Label().validate("my-label-name")`, null],
  [`format.dns1123Subdomain().validate("example.com")`, null],
  [`format.dns1035Label().validate("my-label-name")`, null],
  [`format.qualifiedName().validate("my.name")`, null],
  [`format.byte().validate("aGVsbG8=")`, null],
  [`format.byte().validate("aGVsbG8")`, ['invalid base64']],
  [`format.date().validate("2020-01-01")`, null],
  [`format.date().validate("2020-01-32")`, ['invalid date']],
  [`format.datetime().validate("2020-01-01T00:00:00Z")`, null],
  [`format.datetime().validate("2020-01-32T00:00:00Z")`, ['invalid datetime']],
  [`format.labelValue().validate("my-cool-label-Value")`, null],
  [
    `format.labelValue().validate("my-cool-label-Value!!\\n\\n!!!")`,
    [
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    ],
  ],
  [`format.uri().validate("not a uri")`, ['parse "not a uri": invalid URI for request']],
  [`format.uuid().validate("nope")`, ['does not match the UUID format']],
];

for (const [expr, want] of RESULTS) test(`named format: ${expr}`, () => assert.deepEqual(value(expr), want));

const NAMES = ['dns1123Label', 'dns1123Subdomain', 'dns1035Label', 'qualifiedName', 'dns1123LabelPrefix', 'dns1123SubdomainPrefix', 'dns1035LabelPrefix', 'labelValue', 'uri', 'uuid', 'byte', 'date', 'datetime'];

test('named format: format.named finds every format, equal to its constant and to no other', () => {
  assert.equal(value(`format.named("unknown").hasValue()`), false);
  for (const a of NAMES) {
    assert.equal(value(`format.named("${a}").hasValue()`), true, a);
    assert.equal(value(`format.named("${a}").value() == format.${a}()`), true, a);
    for (const b of NAMES) if (a !== b) assert.equal(value(`format.${a}() == format.${b}()`), false, `${a} == ${b}`);
  }
});
