import assert from 'node:assert/strict';
import { configMaps } from '../../src/kinds/config-map.ts';
import { runKindSuite } from './kind-suite.ts';

const KEY_RULE =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
const IMMUTABLE = 'Forbidden: field is immutable when `immutable` is set';

runKindSuite({
  kind: configMaps,
  valid: [
    { name: 'empty', object: {} },
    { name: 'data and binaryData with distinct keys', object: { data: { 'a.b': 'x', A_B: 'y', 'a-b': 'z' }, binaryData: { bin: 'AAEC' } } },
    { name: 'immutable', object: { data: { a: '1' }, immutable: true } },
    { name: 'exactly 1 MiB of data', object: { data: { big: 'x'.repeat(1024 * 1024) } } },
  ],
  invalid: [
    { name: 'a key with a space', object: { data: { 'a b': '1' } }, errors: [{ field: 'data[a b]', message: `Invalid value: "a b": ${KEY_RULE}` }] },
    { name: "the key '..'", object: { data: { '..': '1' } }, errors: [{ field: 'data[..]', message: `Invalid value: "..": must not be '..'` }] },
    { name: "a key starting with '..'", object: { binaryData: { '..a': 'AA==' } }, errors: [{ field: 'binaryData[..a]', message: `Invalid value: "..a": must not start with '..'` }] },
    {
      name: 'a key in both data and binaryData',
      object: { data: { k: 'v' }, binaryData: { k: 'AA==' } },
      errors: [{ field: 'data[k]', message: 'Invalid value: "k": duplicate of key present in binaryData' }],
    },
    {
      name: 'more than 1 MiB of data and binaryData together',
      object: { data: { a: 'x'.repeat(1024 * 1024) }, binaryData: { b: 'AAAA' } },
      errors: [{ field: '', message: 'Too long: may not be more than 1048576 bytes' }],
    },
    {
      // The one name library judges label keys everywhere (selectors and metadata did not agree on this one).
      name: 'a label key with an empty name part',
      object: { metadata: { labels: { 'example.com/': 'x' } } },
      errors: [
        { field: 'metadata.labels', message: 'Invalid value: "example.com/": name part must be non-empty' },
        {
          field: 'metadata.labels',
          message: `Invalid value: "example.com/": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
        },
      ],
    },
    {
      name: 'a label value of 32 two-byte characters is over 63 bytes',
      object: { metadata: { labels: { k: 'é'.repeat(32) } } },
      errors: [
        { field: 'metadata.labels', message: `Invalid value: "${'é'.repeat(32)}": must be no more than 63 characters` },
        {
          field: 'metadata.labels',
          message: `Invalid value: "${'é'.repeat(32)}": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
        },
      ],
    },
    {
      name: 'annotations over 256 KiB in all',
      object: { metadata: { annotations: { a: 'x'.repeat(200 * 1024), b: 'y'.repeat(100 * 1024) } } },
      errors: [{ field: 'metadata.annotations', message: 'Too long: may not be more than 262144 bytes' }],
    },
  ],
  updates: [
    { name: 'data of a mutable config map changes', object: { data: { a: '1' } }, change: (o) => ({ ...o, data: { a: '2' } }), expect: (o) => assert.deepEqual(o.data, { a: '2' }) },
    { name: 'data of an immutable config map stays', object: { data: { a: '1' }, immutable: true }, change: (o) => ({ ...o, data: { a: '2' } }), errors: [{ field: 'data', message: IMMUTABLE }] },
    {
      name: 'binaryData of an immutable config map stays',
      object: { binaryData: { a: 'AA==' }, immutable: true },
      change: (o) => ({ ...o, binaryData: {} }),
      errors: [{ field: 'binaryData', message: IMMUTABLE }],
    },
    { name: 'immutable cannot be unset', object: { immutable: true }, change: (o) => ({ ...o, immutable: false }), errors: [{ field: 'immutable', message: IMMUTABLE }] },
    { name: 'a mutable config map can become immutable', object: { data: { a: '1' } }, change: (o) => ({ ...o, immutable: true }), expect: (o) => assert.equal(o.immutable, true) },
  ],
  columns: [
    { name: 'Data counts the keys of data and binaryData', object: { data: { a: '1', b: '2' }, binaryData: { c: 'AA==' } }, cells: [3] },
    { name: 'Data is 0 for an empty config map', object: {}, cells: [0] },
  ],
});
