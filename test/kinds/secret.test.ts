import assert from 'node:assert/strict';
import { secrets } from '../../src/kinds/secret.ts';
import { runKindSuite } from './kind-suite.ts';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const IMMUTABLE = 'Forbidden: field is immutable when `immutable` is set';
const typed = (type: string, data: Record<string, string> = {}, extra: Record<string, unknown> = {}) => ({ type, data, ...extra });

// Expectations from upstream's ValidateSecret / ValidateSecretUpdate and the secret strategy (1.34).
runKindSuite({
  kind: secrets,
  valid: [
    { name: 'opaque with data', object: { data: { 'a.b': b64('x'), A_B: b64('y') } } },
    { name: 'basic-auth with only a password', object: typed('kubernetes.io/basic-auth', { password: b64('p') }) },
    { name: 'basic-auth with an empty username', object: typed('kubernetes.io/basic-auth', { username: '' }) },
    { name: 'tls with both keys', object: typed('kubernetes.io/tls', { 'tls.crt': b64('c'), 'tls.key': b64('k') }) },
    { name: 'dockerconfigjson with a JSON object', object: typed('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('{"auths":{}}') }) },
    { name: 'service-account-token naming its account', object: typed('kubernetes.io/service-account-token', {}, { metadata: { annotations: { 'kubernetes.io/service-account.name': 'default' } } }) },
    { name: 'a type of its own', object: typed('example.com/custom', { k: b64('v') }) },
  ],
  invalid: [
    { name: 'a bad key', object: { data: { 'a b': b64('x') } }, errors: [{ field: 'data[a b]', message: `Invalid value: "a b": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')` }] },
    { name: 'more than 1 MiB of data', object: { data: { a: b64('x'.repeat(1024 * 1024 + 1)) } }, errors: [{ field: 'data', message: 'Too long: may not be more than 1048576 bytes' }] },
    {
      name: 'basic-auth without username and password',
      object: typed('kubernetes.io/basic-auth', { other: b64('x') }),
      errors: [
        { field: 'data[username]', message: 'Required value' },
        { field: 'data[password]', message: 'Required value' },
      ],
    },
    { name: 'ssh-auth with an empty private key', object: typed('kubernetes.io/ssh-auth', { 'ssh-privatekey': '' }), errors: [{ field: 'data[ssh-privatekey]', message: 'Required value' }] },
    {
      name: 'tls without its keys',
      object: typed('kubernetes.io/tls', {}),
      errors: [
        { field: 'data[tls.crt]', message: 'Required value' },
        { field: 'data[tls.key]', message: 'Required value' },
      ],
    },
    { name: 'dockercfg without its key', object: typed('kubernetes.io/dockercfg', {}), errors: [{ field: 'data[.dockercfg]', message: 'Required value' }] },
    {
      name: 'dockerconfigjson that is not JSON',
      object: typed('kubernetes.io/dockerconfigjson', { '.dockerconfigjson': b64('{nope') }),
      errors: [{ field: 'data[.dockerconfigjson]', message: `Invalid value: "<secret contents redacted>": invalid character 'n' looking for beginning of object key string` }],
    },
    {
      name: 'dockercfg that is a JSON list',
      object: typed('kubernetes.io/dockercfg', { '.dockercfg': b64('[]') }),
      errors: [{ field: 'data[.dockercfg]', message: 'Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}' }],
    },
    {
      name: 'service-account-token without its account',
      object: typed('kubernetes.io/service-account-token'),
      errors: [{ field: 'metadata.annotations[kubernetes.io/service-account.name]', message: 'Required value' }],
    },
  ],
  updates: [
    { name: 'the type is immutable', object: typed('example.com/a'), change: (o) => ({ ...o, type: 'example.com/b' }), errors: [{ field: 'type', message: 'Invalid value: "example.com/b": field is immutable' }] },
    { name: 'an update without a type keeps Opaque', object: { data: {} }, change: ({ type: _type, ...rest }) => rest, expect: (o) => assert.equal(o.type, 'Opaque') },
    { name: 'data of an immutable secret stays', object: { data: { a: b64('1') }, immutable: true }, change: (o) => ({ ...o, data: { a: b64('2') } }), errors: [{ field: 'data', message: IMMUTABLE }] },
    { name: 'immutable cannot be unset', object: { immutable: true }, change: (o) => ({ ...o, immutable: false }), errors: [{ field: 'immutable', message: IMMUTABLE }] },
  ],
  defaults: [
    { name: 'the type defaults to Opaque', object: {}, expect: (o) => assert.equal(o.type, 'Opaque') },
    {
      name: 'stringData is folded into data and not stored',
      object: { data: { a: b64('old'), b: b64('kept') }, stringData: { a: 'new' } },
      expect: (o) => {
        assert.deepEqual(o.data, { a: b64('new'), b: b64('kept') });
        assert.equal(o.stringData, undefined);
      },
    },
  ],
  columns: [
    { name: 'Type and the number of keys', object: typed('kubernetes.io/basic-auth', { username: b64('u'), password: b64('p') }), cells: ['kubernetes.io/basic-auth', 2] },
  ],
});
