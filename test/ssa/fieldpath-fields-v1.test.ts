import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FieldSet } from '../../src/ssa/fieldpath/field-set.ts';
import { fieldSetFromFieldsV1, fieldSetToFieldsV1, fieldSetToFieldsV1Object } from '../../src/ssa/fieldpath/fields-v1.ts';
import { fieldElement, indexElement, pathString, valueElement, type Path, type PathElement } from '../../src/ssa/fieldpath/path-element.ts';
import { key } from './fixtures.ts';

const f = fieldElement;

function assertRoundTrip(text: string): void {
  const set = fieldSetFromFieldsV1(text);
  assert.equal(fieldSetToFieldsV1(set), text);
  // The object form, as stored in metadata.managedFields, reads back and prints the same.
  const object = fieldSetToFieldsV1Object(set);
  assert.deepEqual(object, JSON.parse(text));
  assert.equal(JSON.stringify(object), text);
  assert.ok(fieldSetFromFieldsV1(object).equals(set));
}

// Written by kube-apiserver (taken from managedFields of live objects).
const fromKubeApiserver: [string, string][] = [
  [
    'Deployment created with kubectl create',
    '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:progressDeadlineSeconds":{},"f:replicas":{},"f:revisionHistoryLimit":{},"f:selector":{},"f:strategy":{"f:rollingUpdate":{".":{},"f:maxSurge":{},"f:maxUnavailable":{}},"f:type":{}},"f:template":{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:resources":{},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{}}}}}',
  ],
  [
    "Deployment status, kube-controller-manager's entry",
    '{"f:metadata":{"f:annotations":{".":{},"f:deployment.kubernetes.io/revision":{}}},"f:status":{"f:availableReplicas":{},"f:conditions":{".":{},"k:{\\"type\\":\\"Available\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}},"k:{\\"type\\":\\"Progressing\\"}":{".":{},"f:lastTransitionTime":{},"f:lastUpdateTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}},"f:observedGeneration":{},"f:readyReplicas":{},"f:replicas":{},"f:updatedReplicas":{}}}',
  ],
  [
    'container env and ports keyed by name and by containerPort and protocol',
    '{"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"server\\"}":{".":{},"f:env":{".":{},"k:{\\"name\\":\\"DEMO_FOLDERS\\"}":{".":{},"f:name":{},"f:value":{}},"k:{\\"name\\":\\"SERVER_PORT\\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"containerPort\\":8089,\\"protocol\\":\\"TCP\\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}}}}}}}',
  ],
  [
    'finalizers, labels and owner references',
    '{"f:metadata":{"f:finalizers":{".":{},"v:\\"finalizers.acn.azure.com/dnc-operations\\"":{}},"f:labels":{".":{},"f:kubernetes.azure.com/podnetwork-delegationguid":{},"f:kubernetes.azure.com/podnetwork-subnet":{},"f:kubernetes.azure.com/podnetwork-type":{},"f:managed":{},"f:owner":{}},"f:ownerReferences":{".":{},"k:{\\"uid\\":\\"83285fa6-def3-4a27-be4e-1167c5529360\\"}":{}}},"f:spec":{".":{},"f:requestedIPCount":{}}}',
  ],
  ['the example from the brief', '{"f:metadata":{"f:labels":{".":{},"f:app":{}}},"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\\"name\\":\\"nginx\\"}":{".":{},"f:image":{},"f:name":{}}}}}}}'],
];

for (const [name, text] of fromKubeApiserver) {
  test(`FieldsV1 as kube-apiserver writes it round-trips byte for byte: ${name}`, () => assertRoundTrip(text));
}

test('FieldsV1 built from paths comes out as kube-apiserver writes it', () => {
  const container = [f('spec'), f('template'), f('spec'), f('containers'), key('name', 'nginx')];
  const set = FieldSet.fromPaths([
    [...container, f('name')],
    [...container, f('image')],
    container,
    [f('metadata'), f('labels'), f('app')],
    [f('metadata'), f('labels')],
  ]);
  assert.equal(fieldSetToFieldsV1(set), fromKubeApiserver[4]![1]);
  const paths = fieldSetFromFieldsV1(fromKubeApiserver[1]![1]).paths().map(pathString);
  assert.ok(paths.includes('.status.conditions[type="Available"].lastTransitionTime'));
  assert.ok(paths.includes('.metadata.annotations.deployment.kubernetes.io/revision'));
});

// Upstream TestSerializeV1GoldenData.
const golden = [
  '{"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\\"name\\":\\"first\\"}":{},"k:{\\"name\\":\\"second\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\\"aa\\"":{},"v:\\"ab\\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}}',
  '{"f:aaa":{"k:{\\"name\\":\\"second\\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"k:{\\"name\\":\\"first\\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\\"name\\":\\"second\\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\\"name\\":\\"first\\"}":{"k:{\\"name\\":\\"first\\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\\"name\\":\\"first\\"}":{"f:aad":{"f:aaf":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"f:aaa":{"f:aad":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"f:aac":{},"k:{\\"name\\":\\"first\\"}":{"i:3":{}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\\"name\\":\\"first\\"}":{},"i:2":{}},"v:\\"aa\\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\\"name\\":\\"first\\"}":{"f:aad":{}},"i:2":{}},"v:\\"ab\\"":{"f:aaf":{"i:4":{}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\\"name\\":\\"second\\"}":{"f:aaa":{}},"i:2":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\\"aa\\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\\"aa\\"":{"f:aab":{"k:{\\"name\\":\\"second\\"}":{}}}}}',
  '{"f:spec":{".":{},"f:apps":{".":{},"k:{\\"name\\":\\" app-💻\\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"name\\":\\"port 🔑\\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}},"k:{\\"name\\":\\" app-🚀\\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"name\\":\\"port-✅ \\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}}}}}',
];

golden.forEach((text, n) => test(`upstream golden FieldsV1 ${n} round-trips byte for byte`, () => assertRoundTrip(text)));

// Upstream TestDeserializeForValidNonNormalized (the first case).
test('FieldsV1 out of order, with whitespace and unsorted key fields, reads to the normal form', () => {
  const loose = `{
  "f:aad": {},
  "f:aaa": {},
  "f:aab": {},
  "f:aac": {},
  "f:aae": {},
  "f:aaf": {},


  "k:{\\"name\\":\\"first\\"}": {},
  "k:{\\"name\\":\\"second\\"}": {},
  "k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}": {},
  "k:{ \\"protocol\\":\\"udp\\",\\"port\\":443}": {},
  "v:1": {},

  "v:2": {},
  "v: 3": {},
  "v:\\"aa\\"": {},

  "v:\\"ab\\"": {},
  "v:true": {},
  "i:1": {},
  \t"i:2": {},
  "i:3": {}  ,
  "i:4":    {}
}`;
  const set = fieldSetFromFieldsV1(loose);
  assert.equal(fieldSetToFieldsV1(set), golden[0]);
  assert.ok(set.equals(fieldSetFromFieldsV1(golden[0])));
});

// Upstream TestSerializeV1: random sets survive a round trip.
test('random sets round-trip through FieldsV1 text and object', () => {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const alphabet: PathElement[] = [
    ...['aaa', 'aab', 'a<b', 'a"b', 'a\\b', 'tab\there', 'ünï', '🚀'].map(f),
    key('name', 'привет'),
    key('port', 443, 'protocol', 'tcp'),
    key('a', { x: [1, 'y'], '&': null }),
    ...[1, -2.5, 1e-7, 'aa', 'x<y&z', true, null, ['l'], { m: 1 }].map(valueElement),
    ...[0, 1, 2147483648].map(indexElement),
  ];
  for (let round = 0; round < 200; round++) {
    const paths: Path[] = [];
    for (let j = 0; j < 30; j++) {
      const length = 2 + Math.floor(next() * 3);
      paths.push(Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]!));
    }
    const set = FieldSet.fromPaths(paths);
    const text = fieldSetToFieldsV1(set);
    assert.ok(fieldSetFromFieldsV1(text).equals(set), text);
    assert.ok(fieldSetFromFieldsV1(fieldSetToFieldsV1Object(set)).equals(set));
    assert.equal(fieldSetToFieldsV1(fieldSetFromFieldsV1(text)), text);
  }
});

test('keys are escaped as json-iterator writes object keys, values inside them as it writes strings', () => {
  const set = FieldSet.fromPaths([
    [f('data'), f('a<b>&c')],
    [f('list'), valueElement('x<y')],
    [f('ctl'), f('\b\f\u0001\u2028')],
  ]);
  assert.equal(
    fieldSetToFieldsV1(set),
    '{"f:ctl":{"f:\\u0008\\u000c\\u0001\u2028":{}},"f:data":{"f:a<b>&c":{}},"f:list":{"v:\\"x\\\\u003cy\\"":{}}}',
  );
  assert.ok(fieldSetFromFieldsV1(fieldSetToFieldsV1(set)).equals(set));
});

test('a member that also has children carries the "." marker, and an empty set is {}', () => {
  assert.equal(fieldSetToFieldsV1(FieldSet.empty()), '{}');
  assert.deepEqual(fieldSetToFieldsV1Object(FieldSet.empty()), {});
  const set = FieldSet.fromPaths([[f('a')], [f('a'), f('b')], [f('c'), f('d')]]);
  assert.equal(fieldSetToFieldsV1(set), '{"f:a":{".":{},"f:b":{}},"f:c":{"f:d":{}}}');
  assert.deepEqual(Object.keys(fieldSetToFieldsV1Object(set)['f:a'] as object), ['.', 'f:b']);
});

test('reading: an empty object or "." makes a member, null and unknown element types too', () => {
  const paths = (raw: unknown) => fieldSetFromFieldsV1(raw).paths().map(pathString);
  assert.deepEqual(paths('{"f:a":{".":{},"f:b":{}},"f:c":{"f:d":{}}}'), ['.a', '.a.b', '.c.d']);
  assert.deepEqual(paths('{"f:a":null}'), ['.a']);
  assert.deepEqual(paths('{"f:a":{".":{"anything":[1,2]},"f:b":{}}}'), ['.a', '.a.b']);
  // Upstream TestDropUnknown, and an unknown key as the only child leaves its parent a member.
  assert.equal(fieldSetToFieldsV1(fieldSetFromFieldsV1('{"f:aaa":{},"r:aab":{}}')), '{"f:aaa":{}}');
  assert.deepEqual(paths('{"f:a":{"x:b":{"f:c":{}}}}'), ['.a']);
  assert.deepEqual(paths('null'), []);
  assert.deepEqual(paths(null), []);
  assert.deepEqual(paths(' null '), []);
  assert.deepEqual(paths(Buffer.from('{"i:3":{}}')), ['[3]']);
});

test('reading: a repeated key adds its membership, and its last children win', () => {
  const set = fieldSetFromFieldsV1('{"f:a":{"f:b":{}},"f:a":{"f:c":{}},"f:a":{}}');
  assert.deepEqual(set.paths().map(pathString), ['.a', '.a.c']);
});

// Upstream TestSetFromJSON: whitespace around and inside is fine.
for (const text of [' {"f:a":{}}', '{"f:a":{}} \t\n\r ', ' \t\n\r {"f:a":{}} \t\n\r ', '  {}  ', '{ "f:a" : {} }', '{\n\t"f:a":{}}', '{"f:a":     {}}']) {
  test(`reads ${JSON.stringify(text)}`, () => assert.equal(fieldSetToFieldsV1(fieldSetFromFieldsV1(text)), text.includes('f:a') ? '{"f:a":{}}' : '{}'));
}

test('like kube-apiserver 1.34, anything after the top-level object is not read', () => {
  for (const text of ['{"f:a":{}}}', '{"f:a":{}}{}', '{"f:a":{}}"string"', '{"f:a":{}}  42']) {
    assert.equal(fieldSetToFieldsV1(fieldSetFromFieldsV1(text)), '{"f:a":{}}');
  }
});

// Upstream TestSetFromJSONTokenTypeErrors (less its trailing-data cases), with json-iterator's messages.
const malformed: [string, string][] = [
  ['[]', 'ReadMapCB: expect { or n, but found [, error found in #1 byte of ...|[]|..., bigger context ...|[]|...'],
  ['42', 'ReadMapCB: expect { or n, but found 4, error found in #1 byte of ...|42|..., bigger context ...|42|...'],
  ['"hi"', 'ReadMapCB: expect { or n, but found ", error found in #1 byte of ...|"hi"|..., bigger context ...|"hi"|...'],
  ['', 'ReadMapCB: expect { or n, but found \u0000, error found in #0 byte of ...||..., bigger context ...||...'],
  ['   ', 'ReadMapCB: expect { or n, but found \u0000, error found in #0 byte of ...|   |..., bigger context ...|   |...'],
  ['{1:{}}', 'ReadMapCB: expect " after {, but found 1, error found in #2 byte of ...|{1:{}}|..., bigger context ...|{1:{}}|...'],
  ['{"f:a":{},}', 'ReadString: expects " or n, but found }, error found in #10 byte of ...|"f:a":{},}|..., bigger context ...|{"f:a":{},}|...'],
  ['{"f:a" }:{}}', 'ReadMapCB: expect : after object field, but found ", error found in #8 byte of ...|{"f:a" }:{}}|..., bigger context ...|{"f:a" }:{}}|...'],
  ['{"f:a":}', 'ReadMapCB: expect { or n, but found }, error found in #8 byte of ...|{"f:a":}|..., bigger context ...|{"f:a":}|...'],
  ['{"f:a":1}', 'ReadMapCB: expect { or n, but found 1, error found in #8 byte of ...|{"f:a":1}|..., bigger context ...|{"f:a":1}|...'],
  ['{"f:a":[]}', 'ReadMapCB: expect { or n, but found [, error found in #8 byte of ...|{"f:a":[]}|..., bigger context ...|{"f:a":[]}|...'],
  ['{"f:a":[}', 'ReadMapCB: expect { or n, but found [, error found in #8 byte of ...|{"f:a":[}|..., bigger context ...|{"f:a":[}|...'],
  ['{"f:a":{]}', 'ReadMapCB: expect " after {, but found ], error found in #9 byte of ...|{"f:a":{]}|..., bigger context ...|{"f:a":{]}|...'],
  ['{"f:a":{},,"f:b":{}}', 'ReadString: expects " or n, but found ,, error found in #10 byte of ...|"f:a":{},,"f:b":{}}|..., bigger context ...|{"f:a":{},,"f:b":{}}|...'],
  ['{"f:a":{} "f:b":{}}', 'ReadMapCB: object not ended with }, error found in #10 byte of ...|"f:a":{} "f:b":{}}|..., bigger context ...|{"f:a":{} "f:b":{}}|...'],
  ['{"f:a"::{}}', 'ReadMapCB: expect { or n, but found :, error found in #8 byte of ...|{"f:a"::{}}|..., bigger context ...|{"f:a"::{}}|...'],
  ['{:1}', 'ReadMapCB: expect " after {, but found :, error found in #2 byte of ...|{:1}|..., bigger context ...|{:1}|...'],
  ['{"f:a"}', 'ReadMapCB: expect : after object field, but found ", error found in #7 byte of ...|{"f:a"}|..., bigger context ...|{"f:a"}|...'],
  ['{"f:a":{"f:b":{}},"f:c"}', 'ReadMapCB: expect : after object field, but found ,, error found in #10 byte of ...|{}},"f:c"}|..., bigger context ...|{"f:a":{"f:b":{}},"f:c"}|...'],
  ['{"f:a":{,}}', 'ReadMapCB: expect " after {, but found ,, error found in #9 byte of ...|{"f:a":{,}}|..., bigger context ...|{"f:a":{,}}|...'],
  ['}', 'ReadMapCB: expect { or n, but found }, error found in #1 byte of ...|}|..., bigger context ...|}|...'],
  ['{"":{}}', 'parsing key as path element: key must be 2 characters long:, error found in #4 byte of ...|{"":{}}|..., bigger context ...|{"":{}}|...'],
  ['{"x":{}}', 'parsing key as path element: key must be 2 characters long:, error found in #5 byte of ...|{"x":{}}|..., bigger context ...|{"x":{}}|...'],
  ['{"fa":{}}', 'parsing key as path element: missing colon: fa, error found in #6 byte of ...|{"fa":{}}|..., bigger context ...|{"fa":{}}|...'],
  ['{":":{}}', 'parsing key as path element: key must be 2 characters long:, error found in #5 byte of ...|{":":{}}|..., bigger context ...|{":":{}}|...'],
  ['{', 'ReadMapCB: expect " after {, but found \u0000, error found in #1 byte of ...|{|..., bigger context ...|{|...'],
  ['{"f:a":{}', 'ReadMapCB: object not ended with }, error found in #9 byte of ...|{"f:a":{}|..., bigger context ...|{"f:a":{}|...'],
  ['{"f:a":{},', 'ReadString: expects " or n, but found \u0000, error found in #10 byte of ...|{"f:a":{},|..., bigger context ...|{"f:a":{},|...'],
  ['{"', 'readStringSlowPath: unexpected end of input, error found in #2 byte of ...|{"|..., bigger context ...|{"|...'],
  ['{"f:a', 'readStringSlowPath: unexpected end of input, error found in #5 byte of ...|{"f:a|..., bigger context ...|{"f:a|...'],
  ['{"f:a\\', 'readEscapedChar: invalid escape char after \\, error found in #6 byte of ...|{"f:a\\|..., bigger context ...|{"f:a\\|...'],
  ['{"f:\\u00', 'readStringSlowPath: unexpected end of input, error found in #8 byte of ...|{"f:\\u00|..., bigger context ...|{"f:\\u00|...'],
  ['{"f:a":{"f:b":', 'ReadMapCB: expect { or n, but found \u0000, error found in #10 byte of ...|a":{"f:b":|..., bigger context ...|{"f:a":{"f:b":|...'],
  ['{"i:x":{}}', 'parsing key as path element: strconv.Atoi: parsing "x": invalid syntax, error found in #7 byte of ...|{"i:x":{}}|..., bigger context ...|{"i:x":{}}|...'],
  [
    '{"k:{\\"a\\":x}":{}}',
    'parsing key as path element: Read: unexpected value type: 0, error found in #5 byte of ...|{"a":x}|..., bigger context ...|{"a":x}|..., error found in #10 byte of ...|\\"a\\":x}":{}}|..., bigger context ...|{"k:{\\"a\\":x}":{}}|...',
  ],
  ['{"f:a":{".":01}}', 'readFloat32: leading zero is invalid, error found in #10 byte of ...|f:a":{".":01}}|..., bigger context ...|{"f:a":{".":01}}|...'],
  ['{"f:a":{".":1.2.3}}', 'validateNumber: more than one dot found in number, error found in #10 byte of ...|:a":{".":1.2.3}}|..., bigger context ...|{"f:a":{".":1.2.3}}|...'],
  ['{"f:a":{".":1e400}}', 'readNumberAsString: invalid number, error found in #10 byte of ...|{".":1e400}}|..., bigger context ...|{"f:a":{".":1e400}}|...'],
  ['{"f:a":{".":x}}', 'Skip: do not know how to skip: 120, error found in #10 byte of ...|:a":{".":x}}|..., bigger context ...|{"f:a":{".":x}}|...'],
];

for (const [text, message] of malformed) {
  test(`malformed FieldsV1 ${JSON.stringify(text)}`, () => assert.throws(() => fieldSetFromFieldsV1(text), { message }));
}

test('a value upstream skips may be any JSON it can skip', () => {
  const set = fieldSetFromFieldsV1('{"f:a":{".":{"x":[1,-2.5e3,"s\\n",true,false,null,{}]},"r:u":-01}}');
  assert.deepEqual(set.paths().map(pathString), ['.a']);
});

test('a FieldsV1 object is read as its JSON text, so error positions count its bytes', () => {
  assert.throws(() => fieldSetFromFieldsV1({ 'f:a': {}, 'f:b': 1 }), {
    message: 'ReadMapCB: expect { or n, but found 1, error found in #10 byte of ...|{},"f:b":1}|..., bigger context ...|{"f:a":{},"f:b":1}|...',
  });
  assert.throws(() => fieldSetFromFieldsV1(undefined), { message: /^ReadMapCB: expect \{ or n, but found \u0000/ });
});

test('text longer than 4096 bytes is read in chunks, which shows in error contexts and fast paths', () => {
  // Error positions and context count from the start of the chunk being read, as upstream's reader does.
  const filler = (n: number) => `"f:${'a'.repeat(n - 8)}":{},`;
  const head = `{${filler(4095)}`;
  assert.equal(head.length, 4096);
  assert.throws(() => fieldSetFromFieldsV1(`${head}"x":{}}`), {
    message: 'parsing key as path element: key must be 2 characters long:, error found in #4 byte of ...|"x":{}}|..., bigger context ...|"x":{}}|...',
  });
  // A raw control character in a key is an error, unless the key's first chunk ends before it: the
  // rest of the key is then read byte by byte, without that check.
  assert.throws(() => fieldSetFromFieldsV1(`{"f:a\u0001b":{}}`), { message: /^ReadString: invalid control character found: 1,/ });
  const across = `{${filler(4091)}"f:a\u0001b":{}}`;
  assert.equal(across.indexOf('\u0001'), 4096);
  assert.ok(fieldSetFromFieldsV1(across).has([f('a\u0001b')]));
});
