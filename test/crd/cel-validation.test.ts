/**
 * Evaluating CRD validation rules on custom resource data: upstream's TestValidationExpressions
 * (apiextensions-apiserver 1.34, schema/cel/validation_test.go) for what is particular to CRDs —
 * how schema types, formats, list types, maps, objects, embedded resources, int-or-string,
 * preserved unknown fields, null and escaped names look to a rule, transition rules, and the
 * errors of data the schema does not allow. Each valid rule must pass on the object; each error
 * rule must fail with a message containing upstream's text.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText } from '../../src/api/errors.ts';
import { buildValidator, runValidator } from '../../src/crd/cel/validator.ts';
import { path } from '../../src/registry/validation/field.ts';
import type { Structural } from '../../src/crd/schema/structural.ts';
import {
  booleanType,
  byteType,
  dateFormat,
  dateTimeFormat,
  doubleType,
  durationFormat,
  floatType,
  int32Type,
  int64Type,
  integerType,
  intOrStringType,
  listMapType,
  listSetType,
  listType,
  mapType,
  numberType,
  objectType,
  objs,
  primitive,
  schemas,
  stringType,
  withDefault,
  withEmbedded,
  withNullable,
  withPreserveUnknown,
  withRule,
  withValidation,
} from './cel-fixtures.ts';

const BUDGET = 10_000_000;
const valsEqual = (v1: string, v2: string, lit: string) => `${v1} == ${lit} && ${lit} == ${v1} && ${v1} == ${v2}`;

interface Case {
  name: string;
  schema: Structural;
  obj: unknown;
  oldObj?: unknown;
  valid?: string[];
  errors?: Record<string, string>;
  isRoot?: boolean;
  expectSkipped?: boolean;
  expectedCost?: number;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
const cases: Case[] = [
  {
    name: 'integers',
    obj: objs(MAX_SAFE, MAX_SAFE, 2147483647, 2147483647, MAX_SAFE, MAX_SAFE),
    schema: schemas(integerType(), integerType(), int32Type(), int32Type(), int64Type(), int64Type()),
    valid: [
      valsEqual('self.val1', 'self.val2', String(MAX_SAFE)),
      valsEqual('self.val3', 'self.val4', '2147483647'),
      'self.val1 == self.val6',
      'type(self.val1) == int',
      'self.val3 + 1 == 2147483647 + 1',
      'type(self.val3) == int',
      'type(self.val5) == int',
    ],
    errors: { 'self.val1 * 2048 == 0': 'integer overflow', '1 / 0 == 1 / 0': 'division by zero' },
  },
  {
    name: 'numbers',
    obj: objs(Number.MAX_VALUE, Number.MAX_VALUE, 3.4028234663852886e38, 3.4028234663852886e38, Number.MAX_VALUE, Number.MAX_VALUE, 1),
    schema: schemas(numberType(), numberType(), floatType(), floatType(), doubleType(), doubleType(), doubleType()),
    valid: [
      'self.val1 == self.val6',
      'type(self.val1) == double',
      'type(self.val3) == double',
      'type(self.val5) == double',
      // A whole number under type number is a double, though JSON decodes it as an integer.
      'type(self.val7) == double',
      'self.val7 == 1.0',
    ],
  },
  {
    name: 'numeric comparisons',
    obj: objs(5, 10, 15, 10.5, 10.5, 10.5, 10, 10, 10),
    schema: schemas(integerType(), integerType(), integerType(), numberType(), floatType(), doubleType(), numberType(), floatType(), doubleType()),
    valid: ['double(self.val2) < self.val4', 'self.val2 == int(self.val4)', 'double(self.val2) == self.val7', 'self.val2 == int(self.val9)', 'self.val1 < self.val4', 'self.val3 > self.val6', 'self.val1 < self.val7', 'self.val3 > self.val9', 'self.val1 < 10.0'],
  },
  {
    name: 'unicode strings',
    obj: objs('Rook takes 👑', 'Rook takes 👑'),
    schema: schemas(stringType(), stringType()),
    valid: [
      valsEqual('self.val1', 'self.val2', "'Rook takes 👑'"),
      "self.val1.startsWith('Rook')",
      "self.val1.endsWith('👑')",
      "self.val1.matches('^[^0-9]*$')",
      'size(self.val1) == 12',
      "self.val1.charAt(3) == 'k'",
      "self.val1.split(' ') == ['Rook', 'takes', '👑']",
      "self.val1.substring(4, 10).trim() == 'takes'",
    ],
    errors: { "self.val1.matches(')')": 'compile error: compilation failed: ERROR: <input>:1:19: invalid matches argument' },
  },
  {
    name: 'escaped strings',
    obj: objs('l1\nl2', 'l1\nl2'),
    schema: schemas(stringType(), stringType()),
    valid: [valsEqual('self.val1', 'self.val2', "'l1\\nl2'"), "self.val1 == '''l1\nl2'''"],
  },
  {
    name: 'bytes',
    obj: objs('QUI=', 'QUI='),
    schema: schemas(byteType(), byteType()),
    valid: ['self.val1 == self.val2', "self.val1 == b'AB'", "self.val1 == bytes('AB')", "self.val1 == b'\\x41\\x42'", 'type(self.val1) == bytes', 'size(self.val1) == 2'],
  },
  {
    name: 'booleans',
    obj: objs(true, true, false, false),
    schema: schemas(booleanType(), booleanType(), booleanType(), booleanType()),
    valid: [valsEqual('self.val1', 'self.val2', 'true'), valsEqual('self.val3', 'self.val4', 'false'), 'self.val1 != self.val4', 'type(self.val1) == bool'],
  },
  {
    name: 'duration format',
    obj: objs('1h2m3s4ms', '1h2m3s4ms', '3 days', '2w'),
    schema: schemas(durationFormat(), durationFormat(), durationFormat(), durationFormat()),
    valid: [
      valsEqual('self.val1', 'self.val2', "duration('1h2m3s4ms')"),
      "self.val1 == duration('1h2m') + duration('3s4ms')",
      'self.val1.getHours() == 1',
      'self.val1.getMinutes() == 62',
      'self.val1.getSeconds() == 3723',
      'self.val1.getMilliseconds() == 3723004',
      'type(self.val1) == google.protobuf.Duration',
      // strfmt's durations: unit words and days/weeks.
      "self.val3 == duration('72h')",
      "self.val4 == duration('336h')",
    ],
    errors: {
      "duration('1')": 'compilation failed: ERROR: <input>:1:10: invalid duration argument',
      "duration('1d')": 'compilation failed: ERROR: <input>:1:10: invalid duration argument',
    },
  },
  {
    name: 'date format',
    obj: objs('1997-07-16', '1997-07-16'),
    schema: schemas(dateFormat(), dateFormat()),
    valid: [
      valsEqual('self.val1', 'self.val2', "timestamp('1997-07-16T00:00:00.000Z')"),
      'self.val1.getDate() == 16',
      'self.val1.getMonth() == 06',
      'self.val1.getFullYear() == 1997',
      'type(self.val1) == google.protobuf.Timestamp',
    ],
  },
  {
    name: 'date-time format',
    obj: objs('2011-08-18T19:03:37.010000000+01:00', '2011-08-18T19:03:37.010000000+01:00'),
    schema: schemas(dateTimeFormat(), dateTimeFormat()),
    valid: [
      valsEqual('self.val1', 'self.val2', "timestamp('2011-08-18T19:03:37.010+01:00')"),
      "self.val1 == timestamp('2011-08-18T00:00:00.000+01:00') + duration('19h3m37s10ms')",
      "self.val1.getDate('01:00') == 18",
      "self.val1.getMonth('01:00') == 7",
      "self.val1.getFullYear('01:00') == 2011",
      "self.val1.getHours('01:00') == 19",
      "self.val1.getMinutes('01:00') == 03",
      "self.val1.getSeconds('01:00') == 37",
      "self.val1.getMilliseconds('01:00') == 10",
      "self.val1.getHours('UTC') == 18",
      'type(self.val1) == google.protobuf.Timestamp',
    ],
    errors: { "timestamp('1000-00-00T00:00:00Z')": 'compilation failed: ERROR: <input>:1:11: invalid timestamp' },
  },
  {
    name: 'enums',
    obj: { enumStr: 'Pending' },
    schema: objectType({ enumStr: withValidation(stringType(), { enum: ['Pending', 'Available', 'Bound', 'Released', 'Failed'] }) }),
    valid: ["self.enumStr == 'Pending'", "self.enumStr in ['Pending', 'Available']"],
  },
  {
    name: 'conversions',
    obj: objs(10, 10.0, 10.49, 10.5, true, '10', 'MTA=', '3723.004s', '1h2m3s4ms', '2011-08-18T19:03:37.01+01:00', '2011-08-18T19:03:37.01+01:00', '2011-08-18T00:00:00Z', '2011-08-18'),
    schema: schemas(integerType(), numberType(), numberType(), numberType(), booleanType(), stringType(), byteType(), stringType(), durationFormat(), stringType(), dateTimeFormat(), stringType(), dateFormat()),
    valid: [
      'int(self.val2) == self.val1',
      'int(self.val3) == self.val1',
      'int(self.val4) == self.val1',
      'int(self.val6) == self.val1',
      'double(self.val1) == self.val2',
      'double(self.val6) == self.val2',
      'bytes(self.val6) == self.val7',
      'string(self.val1) == self.val6',
      "string(self.val2) == '10'",
      "string(self.val3) == '10.49'",
      "string(self.val4) == '10.5'",
      "string(self.val5) == 'true'",
      'string(self.val7) == self.val6',
      'duration(self.val8) == self.val9',
      'string(self.val9) == self.val8',
      'timestamp(self.val10) == self.val11',
      'string(self.val11) == self.val10',
      'timestamp(self.val12) == self.val13',
      'string(self.val13) == self.val12',
    ],
  },
  {
    name: 'lists',
    obj: objs([1, 2, 3], [1, 2, 3]),
    schema: schemas(listType(integerType()), listType(integerType())),
    valid: [valsEqual('self.val1', 'self.val2', '[1, 2, 3]'), '1 in self.val1', 'self.val2[0] in self.val1', '!(0 in self.val1)', 'self.val1 + self.val2 == [1, 2, 3, 1, 2, 3]', 'self.val1 + [4, 5] == [1, 2, 3, 4, 5]'],
    errors: { "[1, 'a', false].filter(x, string(x) == 'a')": "compilation failed: ERROR: <input>:1:5: expected type 'int' but found 'string'" },
  },
  {
    name: 'ext lists version 3 (stored expressions)',
    obj: objs([1, 2, 3], [3, 1, 2]),
    schema: schemas(listType(integerType()), listType(integerType())),
    valid: ['self.val2.sort() == self.val1', 'self.val1.slice(1, 2) == [2]', 'lists.range(3) == [0, 1, 2]', 'self.val1.reverse() == [3, 2, 1]', 'self.val2.sortBy(x, -x) == [3, 2, 1]', '[[1], [2, 3]].flatten() == self.val1', '[1, 1, 2].distinct() == [1, 2]'],
  },
  {
    name: 'string lists',
    obj: objs(['a', 'b', 'c']),
    schema: schemas(listType(stringType())),
    valid: ["self.val1.join('-') == 'a-b-c'", "self.val1.join() == 'abc'"],
  },
  {
    name: 'listSets',
    obj: objs(['a', 'b', 'c'], ['a', 'c', 'b']),
    schema: schemas(listSetType(stringType()), listSetType(stringType())),
    valid: [
      "self.val1 == ['c', 'b', 'a']",
      'self.val1 == self.val2',
      "'a' in self.val1",
      'self.val2[0] in self.val1',
      "!('x' in self.val1)",
      "self.val1 + self.val2 == ['a', 'b', 'c']",
      "self.val1 + ['c', 'd'] == ['a', 'b', 'c', 'd']",
      "self.val1.join('-') == 'a-b-c'",
      "sets.contains(['a', 'b'], ['b'])",
      "sets.equivalent(['c', 'b', 'a'], ['b', 'c', 'a'])",
      "sets.intersects(['a', 'b'], ['b', 'c'])",
    ],
  },
  {
    name: 'listMaps',
    obj: {
      objs: [
        [
          { k: 'a', v: '1' },
          { k: 'b', v: '2' },
        ],
        [
          { k: 'b', v: '2' },
          { k: 'a', v: '1' },
        ],
        [
          { k: 'b', v: '3' },
          { k: 'a', v: '1' },
        ],
        [{ k: 'c', v: '4' }],
      ],
    },
    schema: objectType({ objs: listType(listMapType(['k'], objectType({ k: stringType(), v: stringType() }))) }),
    valid: [
      'self.objs[0] == self.objs[1]',
      'self.objs[0] + self.objs[2] == self.objs[2]',
      'self.objs[2] + self.objs[0] == self.objs[0]',
      'self.objs[0] == [self.objs[0][0], self.objs[0][1]]',
      'self.objs[0] == [self.objs[0][1], self.objs[0][0]]',
      'self.objs[2] + [self.objs[0][0], self.objs[0][1]] == self.objs[0]',
      'size(self.objs[0] + [self.objs[3][0]]) == 3',
    ],
    errors: { "self.objs[0] == {'k': 'a', 'v': '1'}": "no matching overload for '_==_'" },
  },
  {
    name: 'maps',
    obj: objs({ k1: 'a', k2: 'b' }, { k2: 'b', k1: 'a' }),
    schema: schemas(mapType(stringType()), mapType(stringType())),
    valid: ['self.val1 == self.val2', "'k1' in self.val1", "!('k3' in self.val1)", "self.val1 == {'k1': 'a', 'k2': 'b'}"],
    errors: { "{'k1': 'a', 'k2': 1, 'k2': false}": "expected type 'string' but found 'int'" },
  },
  {
    name: 'objects',
    obj: {
      objs: [
        { f1: 'a', f2: 'b' },
        { f1: 'a', f2: 'b' },
      ],
    },
    schema: objectType({ objs: listType(objectType({ f1: stringType(), f2: stringType() })) }),
    valid: ['self.objs[0] == self.objs[1]'],
    errors: { "self.objs[0] == {'f1': 'a', 'f2': 'b'}": "found no matching overload for '_==_'" },
  },
  {
    name: 'object access',
    obj: { a: { b: 1, d: null }, a1: { b1: { c1: 4 } }, a3: {} },
    schema: objectType({
      a: objectType({ b: integerType(), c: integerType(), d: withNullable(integerType()) }),
      a1: objectType({ b1: objectType({ c1: integerType() }), d2: objectType({ e2: integerType() }) }),
    }),
    valid: ['has(self.a.b)', '!has(self.a.c)', '!has(self.a.d)', 'has(self.a1.b1.c1)', '!(has(self.a1.d2) && has(self.a1.d2.e2))', '!has(self.a1.d2)'],
    errors: { 'has(self.a.z)': "undefined field 'z'", 'has(self.a1.d2.e2)': 'no such key: d2' },
  },
  {
    name: 'map access',
    obj: { val: { b: 1, d: 2 } },
    schema: objectType({ val: mapType(integerType()) }),
    valid: [
      "!('a' in self.val)",
      "'b' in self.val",
      '!has(self.val.a)',
      'has(self.val.b)',
      'self.val.all(k, self.val[k] > 0)',
      'self.val.exists_one(k, self.val[k] == 2)',
      '!self.val.exists_one(k, self.val[k] > 0)',
      'size(self.val) == 2',
      'self.val.map(k, self.val[k]).exists(v, v == 1)',
      'size(self.val.filter(k, self.val[k] > 1)) == 1',
      'self.val.all(k, v, v > 0)',
      'self.val.exists(k, v, v == 2)',
      'self.val.existsOne(k, v, v == 2)',
      'self.val.transformMap(k, v, v > 1, v + 1).size() == 1',
      'self.val.transformMap(k, v, v + 1).size() == 2',
      "self.val.transformMapEntry(k, v, v > 1, {k + '2': v + 1}).size() == 1",
      "self.val.transformMapEntry(k, v, {k + '2': v + 1}).size() == 2",
    ],
    errors: { "self.val['c'] == 1": 'no such key: c' },
  },
  {
    name: 'listMap access',
    obj: {
      listMap: [
        { k: 'a1', v: 'b1' },
        { k: 'a2', v: 'b2' },
        { k: 'a3', v: 'b3', v2: 'z' },
      ],
    },
    schema: objectType({ listMap: listMapType(['k'], objectType({ k: stringType(), v: stringType(), v2: stringType() })) }),
    valid: [
      'has(self.listMap[0].v)',
      "self.listMap.all(m, m.k.startsWith('a'))",
      "self.listMap.all(m, !has(m.v2) || m.v2 == 'z')",
      "self.listMap.exists_one(m, m.k == 'a3')",
      "self.listMap.map(m, m.v).exists(v, v == 'b1')",
      "self.listMap.map(m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1",
      "self.listMap.exists(m, m.v2 == 'z')",
      "!self.listMap.all(m, m.v2 != 'z')",
      "self.listMap.transformList(i, m, has(m.v2) && m.v2 == 'z', m.v2).size() == 1",
      'self.listMap.transformList(i, m, m.v).size() == 3',
    ],
    errors: {
      "self.listMap.all(m, m.v2 == 'z')": 'no such key: v2',
      "self.listMap.exists_one(m, m.v2 == 'z')": 'no such key: v2',
      "self.listMap.filter(m, m.v2 == 'z').size() == 1": 'no such key: v2',
      'self.listMap.map(m, m.v2).size() == 1': 'no such key: v2',
    },
  },
  {
    name: 'list access',
    obj: { array: [1, 1, 2, 2, 3, 3, 4, 5] },
    schema: objectType({ array: listType(integerType()) }),
    valid: ['2 in self.array', 'self.array.exists_one(e, e > 4)', 'size(self.array.filter(e, e%2 == 0)) == 3', 'self.array.map(e, e * 20).filter(e, e > 50).exists(e, e == 60)', 'self.array.transformList(i, e, e * 2).size() > 0'],
    errors: { 'self.array[100] == 0': 'index out of bounds: 100' },
  },
  {
    name: 'typemeta and objectmeta access specified',
    obj: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', generateName: 'pickItForMe', namespace: 'xyz' } },
    schema: objectType({ kind: stringType(), apiVersion: stringType(), metadata: objectType({ name: stringType(), generateName: stringType() }) }),
    valid: ["self.kind == 'Pod'", "self.apiVersion == 'v1'", "self.metadata.name == 'foo'", "self.metadata.generateName == 'pickItForMe'"],
    errors: { 'has(self.metadata.namespace)': "undefined field 'namespace'" },
  },
  {
    name: 'typemeta and objectmeta access not specified',
    isRoot: true,
    obj: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', generateName: 'pickItForMe', namespace: 'xyz' }, spec: { field1: 'a' } },
    schema: objectType({ spec: objectType({ field1: stringType() }) }),
    valid: ["self.kind == 'Pod'", "self.apiVersion == 'v1'", "self.metadata.name == 'foo'", "self.metadata.generateName == 'pickItForMe'", "self.spec.field1 == 'a'"],
    errors: { 'has(self.metadata.namespace)': "undefined field 'namespace'" },
  },
  {
    name: 'embedded object',
    obj: { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', generateName: 'pickItForMe', namespace: 'xyz' }, spec: { field1: 'a' } } },
    schema: objectType({ embedded: withEmbedded(primitive('object')) }),
    valid: ["self.embedded.kind == 'Pod'", "self.embedded.apiVersion == 'v1'", "self.embedded.metadata.name == 'foo'", "self.embedded.metadata.generateName == 'pickItForMe'"],
    errors: { 'has(self.embedded.metadata.namespace)': "undefined field 'namespace'", 'has(self.embedded.spec)': "undefined field 'spec'" },
  },
  {
    name: 'embedded object with usage of reserved keywords',
    obj: { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', generateName: 'pickItForMe', namespace: 'reserved_keyword_namespace' }, spec: { if: 'reserved_keyword_if' } } },
    schema: objectType({
      embedded: withEmbedded(
        objectType({
          kind: stringType(),
          apiVersion: stringType(),
          metadata: objectType({ name: stringType(), generateName: stringType(), namespace: stringType() }),
          spec: objectType({ if: stringType() }),
        }),
      ),
    }),
    valid: ['has(self.embedded.metadata.namespace)', "self.embedded.metadata.namespace == 'reserved_keyword_namespace'", 'has(self.embedded.spec.if)', "self.embedded.spec.if == 'reserved_keyword_if'"],
  },
  {
    name: 'embedded object with preserve unknown',
    obj: { embedded: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'foo', generateName: 'pickItForMe', namespace: 'xyz' }, spec: { field1: 'a' } } },
    schema: objectType({ embedded: withPreserveUnknown(withEmbedded(primitive('object'))) }),
    valid: ["self.embedded.kind == 'Pod'", "self.embedded.metadata.generateName == 'pickItForMe'", 'has(self.embedded)'],
    errors: { 'has(self.embedded.spec)': "undefined field 'spec'" },
  },
  {
    name: 'string in intOrString',
    obj: { something: '25%' },
    schema: objectType({ something: intOrStringType() }),
    valid: [
      "self.something == '25%'",
      'self.something != 1',
      "self.something == 1 || self.something == '25%'",
      "self.something == '25%' || self.something == 1",
      "type(self.something) == string && self.something == '25%'",
      "type(self.something) == int ? self.something == 1 : self.something == '25%'",
      "self.something != ['anything']",
    ],
  },
  {
    name: 'int in intOrString',
    obj: { something: 1 },
    schema: objectType({ something: intOrStringType() }),
    valid: ['self.something == 1', "self.something != 'some string'", "self.something == '25%' || self.something == 1", 'type(self.something) == int && self.something == 1', "self.something != ['anything']"],
  },
  {
    name: 'null in intOrString',
    obj: { something: null },
    schema: objectType({ something: withNullable(intOrStringType()) }),
    valid: ['!has(self.something)'],
    errors: { 'type(self.something) == int': 'no such key' },
  },
  {
    name: 'percent comparison using intOrString',
    obj: { min: '50%', current: 5, available: 10 },
    schema: objectType({ min: intOrStringType(), current: integerType(), available: integerType() }),
    valid: [
      "type(self.min) == string && self.min.matches(r'(\\d+(\\.\\d+)?%)')",
      "type(self.min) == int ? self.current <= self.min : double(self.current) / double(self.available) >= double(self.min.replace('%', '')) / 100.0",
    ],
  },
  {
    name: 'preserve unknown fields',
    obj: {
      withUnknown: { field1: 'a', field2: 'b' },
      withUnknownList: [{ field1: 'a', field2: 'b' }, { field1: 'x', field2: 'y' }, { field1: 'x', field2: 'y' }, {}, {}],
      withUnknownFieldList: [{ fieldOfUnknownType: 'a' }, { fieldOfUnknownType: 1 }, { fieldOfUnknownType: 1 }],
      anyvalList: ['a', 2],
      anyvalMap: { k: '1' },
      anyvalField1: 1,
      anyvalField2: 'a',
    },
    schema: objectType({
      withUnknown: withPreserveUnknown(primitive('object')),
      withUnknownList: listType(withPreserveUnknown(primitive('object'))),
      withUnknownFieldList: listType(objectType({ fieldOfUnknownType: withPreserveUnknown(primitive('')) })),
      anyvalList: listType(withPreserveUnknown(primitive(''))),
      anyvalMap: mapType(withPreserveUnknown(primitive(''))),
      anyvalField1: withPreserveUnknown(primitive('')),
      anyvalField2: withPreserveUnknown(primitive('')),
    }),
    valid: [
      'has(self.withUnknown)',
      'self.withUnknownList.size() == 5',
      'self.withUnknownList[0] != self.withUnknownList[1]',
      'self.withUnknownList[1] == self.withUnknownList[2]',
      'self.withUnknownList[3] == self.withUnknownList[4]',
      'self.withUnknownFieldList[0] != self.withUnknownFieldList[1]',
      'self.withUnknownFieldList[1] == self.withUnknownFieldList[2]',
    ],
    errors: {
      'has(self.withUnknown.field1)': "undefined field 'field1'",
      'has(self.anyvalList)': "undefined field 'anyvalList'",
      'has(self.anyvalMap)': "undefined field 'anyvalMap'",
      'has(self.anyvalField1)': "undefined field 'anyvalField1'",
    },
  },
  {
    name: 'known and unknown fields',
    obj: {
      withUnknown: { known: 1, unknown: 'a' },
      withUnknownList: [{ known: 1, unknown: 'a' }, { known: 1, unknown: 'b' }, { known: 1, unknown: 'b' }, { known: 1 }, { known: 1 }, { known: 2 }],
    },
    schema: objectType({
      withUnknown: withPreserveUnknown(objectType({ known: integerType() })),
      withUnknownList: listType(withPreserveUnknown(objectType({ known: integerType() }))),
    }),
    valid: [
      'self.withUnknown.known == 1',
      'self.withUnknownList[0] != self.withUnknownList[1]',
      'self.withUnknownList[1] == self.withUnknownList[2]',
      'self.withUnknownList[0] != self.withUnknownList[3]',
      'self.withUnknownList[0] != self.withUnknownList[5]',
      'self.withUnknownList[3] == self.withUnknownList[4]',
      'self.withUnknownList[4] != self.withUnknownList[5]',
    ],
    errors: { 'has(self.withUnknown.unknown)': "undefined field 'unknown'" },
  },
  {
    name: 'field nullability',
    obj: { setPlainStr: 'v1', setDefaultedStr: 'v2', setNullableStr: 'v3', setToNullNullableStr: null, unsetDefaultedStr: 'default value' },
    schema: objectType({
      unsetPlainStr: stringType(),
      unsetDefaultedStr: withDefault(stringType(), 'default value'),
      unsetNullableStr: withNullable(stringType()),
      setPlainStr: stringType(),
      setDefaultedStr: withDefault(stringType(), 'default value'),
      setNullableStr: withNullable(stringType()),
      setToNullNullableStr: withNullable(stringType()),
    }),
    valid: [
      '!has(self.unsetPlainStr)',
      "has(self.unsetDefaultedStr) && self.unsetDefaultedStr == 'default value'",
      '!has(self.unsetNullableStr)',
      "has(self.setPlainStr) && self.setPlainStr == 'v1'",
      "has(self.setNullableStr) && self.setNullableStr == 'v3'",
      'type(self.setNullableStr) != null_type',
      '!has(self.setToNullNullableStr)',
    ],
    errors: {
      'self.unsetPlainStr == null': "no matching overload for '_==_' applied to '(string, null)",
      'self.setNullableStr != null': "no matching overload for '_!=_' applied to '(string, null)",
    },
  },
  {
    name: 'null values in container types',
    obj: { m: { a: null, b: 'not-nil' }, l: [null, 'not-nil'], s: [null, 'not-nil'] },
    schema: objectType({ m: mapType(withNullable(stringType())), l: listType(withNullable(stringType())), s: listSetType(withNullable(stringType())) }),
    valid: ['self.m.size() == 2', "'a' in self.m", "type(self.m['a']) == null_type", 'self.l.size() == 2', 'type(self.l[0]) == null_type', 'self.s.size() == 2', 'type(self.s[0]) == null_type'],
  },
  {
    name: 'escaping',
    obj: {
      true: 1, false: 2, null: 3, in: 4, as: 5, break: 6, const: 7, continue: 8, else: 9, for: 10, function: 11, if: 12, import: 13, let: 14, loop: 15, package: 16, namespace: 17, return: 18, var: 19, void: 20, while: 21,
      int: 101, uint: 102, double: 103, bool: 104, string: 105, bytes: 106, list: 107, map: 108, null_type: 109, type: 110,
      self: 201, getDate: 202, all: 203, size: '204', _true: 301,
      'dot.dot': 401, 'dash-dash': 402, 'slash/slash': 403, underscore_underscore: 404, doubleunderscore__doubleunderscore: 405,
    },
    schema: objectType({
      ...Object.fromEntries(['true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if', 'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while'].map((k) => [k, integerType()])),
      ...Object.fromEntries(['int', 'uint', 'double', 'bool', 'string', 'bytes', 'list', 'map', 'null_type', 'type', 'self', 'getDate', 'all', '_true', 'dot.dot', 'dash-dash', 'slash/slash', 'underscore_underscore', 'doubleunderscore__doubleunderscore'].map((k) => [k, integerType()])),
      size: stringType(),
    }),
    valid: [
      'self.__true__ == 1', 'self.__false__ == 2', 'self.__null__ == 3', 'self.__in__ == 4', 'self.__as__ == 5',
      'self.__break__ == 6', 'self.__const__ == 7', 'self.__continue__ == 8', 'self.__else__ == 9',
      'self.__for__ == 10', 'self.__function__ == 11', 'self.__if__ == 12', 'self.__import__ == 13',
      'self.__let__ == 14', 'self.__loop__ == 15', 'self.__package__ == 16', 'self.__namespace__ == 17',
      'self.__return__ == 18', 'self.__var__ == 19', 'self.__void__ == 20', 'self.__while__ == 21',
      'self.int == 101', 'self.uint == 102', 'self.double == 103', 'self.bool == 104', 'self.string == 105', 'self.bytes == 106', 'self.list == 107', 'self.map == 108', 'self.null_type == 109', 'self.type == 110',
      'self.self == 201', 'self.getDate == 202', 'self.all == 203', "self.size == '204'", 'self._true == 301', 'self.__true__ != 301',
      'self.dot__dot__dot == 401', 'self.dash__dash__dash == 402', 'self.slash__slash__slash == 403', 'self.underscore_underscore == 404', 'self.doubleunderscore__underscores__doubleunderscore == 405',
      // Since 1.31 a reserved word selects its escaped field.
      'self.if == 12', 'self.namespace == 17',
    ],
    errors: { 'self.true == 1': "mismatched input 'true'", 'self == 201': "found no matching overload for '_==_'", 'self.__illegal__ == 301': "undefined field '__illegal__'" },
  },
  {
    name: 'map keys are not escaped',
    obj: { m: { '@': 1, '9': 2, int: 3, './-': 4, '👑': 5 } },
    schema: objectType({ m: mapType(integerType()) }),
    valid: ["self.m['@'] == 1", "self.m['9'] == 2", "self.m['int'] == 3", "self.m['./-'] == 4", "self.m['👑'] == 5"],
  },
  {
    name: 'object types are not accessible',
    obj: { nestedInMap: { k1: { inMapField: 1 }, k2: { inMapField: 2 } }, nestedInList: [{ inListField: 1 }, { inListField: 2 }] },
    schema: objectType({ nestedInMap: mapType(objectType({ inMapField: integerType() })), nestedInList: listType(objectType({ inListField: integerType() })) }),
    valid: ['type(self) == type(self)', "type(self.nestedInMap['k1']) == type(self.nestedInMap['k2'])", 'type(self.nestedInList[0]) == type(self.nestedInList[1])'],
    errors: { "string(type(self.nestedInList[0])).endsWith('.nestedInList.@idx')": "found no matching overload for 'string' applied to '(type" },
  },
  {
    name: 'listMaps with unsupported identity characters in property names',
    obj: {
      objs: [
        [
          { 'k!': 'a', 'k.': '1' },
          { 'k!': 'b', 'k.': '2' },
        ],
        [
          { 'k!': 'b', 'k.': '2' },
          { 'k!': 'a', 'k.': '1' },
        ],
        [
          { 'k!': 'b', 'k.': '2' },
          { 'k!': 'c', 'k.': '1' },
        ],
        [
          { 'k!': 'b', 'k.': '2' },
          { 'k!': 'a', 'k.': '3' },
        ],
      ],
    },
    schema: objectType({ objs: listType(listMapType(['k!', 'k.'], objectType({ 'k!': stringType(), 'k.': stringType() }))) }),
    valid: ['self.objs[0] == self.objs[1]', "self.objs[0][0].k__dot__ == '1'", 'self.objs[0] != self.objs[2]', 'self.objs[0] != self.objs[3]'],
    errors: { "self.objs[0][0].k! == '1'": "Syntax error: mismatched input '!' expecting" },
  },
  {
    name: 'container type composition',
    obj: {
      obj: { field: 'a' },
      mapOfMap: { x: { y: 'b' } },
      mapOfObj: { k: { field2: 'c' } },
      mapOfListMap: { o: [{ k: '1', v: 'd' }] },
      mapOfList: { l: ['e'] },
      listMapOfObj: [{ k2: '2', v2: 'f' }],
      listOfMap: [{ z: 'g' }],
      listOfObj: [{ field3: 'h' }],
      listOfListMap: [[{ k3: '3', v3: 'i' }]],
    },
    schema: objectType({
      obj: objectType({ field: stringType() }),
      mapOfMap: mapType(mapType(stringType())),
      mapOfObj: mapType(objectType({ field2: stringType() })),
      mapOfListMap: mapType(listMapType(['k'], objectType({ k: stringType(), v: stringType() }))),
      mapOfList: mapType(listType(stringType())),
      listMapOfObj: listMapType(['k2'], objectType({ k2: stringType(), v2: stringType() })),
      listOfMap: listType(mapType(stringType())),
      listOfObj: listType(objectType({ field3: stringType() })),
      listOfListMap: listType(listMapType(['k3'], objectType({ k3: stringType(), v3: stringType() }))),
    }),
    valid: [
      "self.obj.field == 'a'",
      "self.mapOfMap['x']['y'] == 'b'",
      "self.mapOfObj['k'].field2 == 'c'",
      "self.mapOfListMap['o'].exists(e, e.k == '1' && e.v == 'd')",
      "self.mapOfList['l'][0] == 'e'",
      "self.listMapOfObj.exists(e, e.k2 == '2' && e.v2 == 'f')",
      "self.listOfMap[0]['z'] == 'g'",
      "self.listOfObj[0].field3 == 'h'",
      "self.listOfListMap[0].exists(e, e.k3 == '3' && e.v3 == 'i')",
    ],
  },
  {
    name: 'invalid data',
    obj: { o: [], m: [], l: {}, s: {}, lm: {}, intorstring: true, nullable: [null] },
    schema: objectType({
      o: objectType({ field: stringType() }),
      m: mapType(stringType()),
      l: listType(stringType()),
      s: listSetType(stringType()),
      lm: listMapType(['k'], objectType({ k: stringType(), v: stringType() })),
      intorstring: intOrStringType(),
      nullable: listType(stringType()),
    }),
    errors: {
      'has(self.o)': 'invalid data, expected a map for the provided schema with type=object',
      'has(self.m)': 'invalid data, expected a map for the provided schema with type=object',
      'has(self.l)': 'invalid data, expected an array for the provided schema with type=array',
      'has(self.s)': 'invalid data, expected an array for the provided schema with type=array',
      'has(self.lm)': 'invalid data, expected an array for the provided schema with type=array',
      'has(self.intorstring)': 'invalid data, expected XIntOrString value to be either a string or integer',
      "self.nullable[0] == 'x'": 'invalid data, got null for schema with nullable=false',
    },
  },
  {
    name: 'transition rules',
    obj: { v: 'new' },
    oldObj: { v: 'old' },
    schema: objectType({ v: stringType() }),
    valid: ['oldSelf.v != self.v', "oldSelf.v == 'old' && self.v == 'new'"],
  },
  { name: 'skipped transition rule for nil old primitive', expectSkipped: true, obj: 'exists', oldObj: undefined, schema: stringType(), valid: ['oldSelf == self'] },
  { name: 'skipped transition rule for nil old array', expectSkipped: true, obj: [], oldObj: undefined, schema: listType(stringType()), valid: ['oldSelf == self'] },
  { name: 'skipped transition rule for nil old object', expectSkipped: true, obj: { f: 'exists' }, oldObj: undefined, schema: objectType({ f: stringType() }), valid: ['oldSelf.f == self.f'] },
  { name: 'skipped transition rule for old null', expectSkipped: true, obj: [], oldObj: null, schema: listType(stringType()), valid: ['oldSelf == self'] },
  {
    name: 'authorizer is not supported for CRD Validation Rules',
    obj: [],
    oldObj: [],
    schema: objectType({}),
    errors: { "authorizer.path('/healthz').check('get').allowed()": "undeclared reference to 'authorizer'" },
  },
  {
    name: 'optionals',
    obj: { presentObj: { presentStr: 'value' }, m: { k: 'v' }, l: ['a'] },
    schema: objectType({ presentObj: objectType({ presentStr: stringType() }), absentObj: objectType({ absentStr: stringType() }), m: mapType(stringType()), l: listType(stringType()) }),
    valid: [
      "self.?presentObj.?presentStr == optional.of('value')",
      "self.presentObj.?presentStr.orValue('') == 'value'",
      "self.presentObj.?presentStr.optMap(v, v == 'value').hasValue()",
      'self.?absentObj.?absentStr == optional.none()',
      "self.?absentObj.?absentStr.orValue('nope') == 'nope'",
      "self.m[?'k'] == optional.of('v')",
      "self.m[?'x'].orValue('nope') == 'nope'",
      "self.l[?0] == optional.of('a')",
      'self.l[?1] == optional.none()',
      "{?'k': optional.none(), 'k2': 'v2'} == {'k2': 'v2'}",
      "['a', ?optional.of('v'), 'c'] == ['a', 'v', 'c']",
    ],
    errors: { 'self.absentObj.?absentStr == optional.none()': 'no such key: absentObj' },
  },
  {
    name: 'quantity',
    obj: objs('20', '200M'),
    schema: schemas(stringType(), stringType()),
    valid: ['isQuantity(self.val1)', 'quantity(self.val2) == quantity("0.2G")', 'quantity("50k").add(quantity(self.val1)) == quantity("50.02k")', 'quantity(self.val1).isInteger()'],
  },
  { name: 'cost for extended lib calculated correctly: isSorted', obj: objs('20', '200M'), schema: schemas(stringType(), stringType()), valid: ['[1,2,3,4].isSorted()'], expectedCost: 4 },
  { name: 'cost for extended lib calculated correctly: url', obj: objs('20', '200M'), schema: schemas(stringType(), stringType()), valid: ["url('https:://kubernetes.io/').getHostname() != 'test'"], expectedCost: 4 },
  { name: 'cost for extended lib calculated correctly: split', obj: objs('20', '200M'), schema: schemas(stringType(), stringType()), valid: ["size('abc 123 def 123'.split(' ')) > 0"], expectedCost: 5 },
  { name: 'cost for extended lib calculated correctly: join', obj: objs('20', '200M'), schema: schemas(stringType(), stringType()), valid: ["size(['aa', 'bb', 'cc', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join(' ')) > 0"], expectedCost: 7 },
];

describe('rules on custom resource data (upstream TestValidationExpressions)', () => {
  for (const c of cases) {
    describe(c.name, () => {
      for (const rule of c.valid ?? []) {
        it(`passes: ${rule}`, () => {
          const s = withRule(c.schema, rule);
          const v = buildValidator(s, c.isRoot ?? false);
          assert.ok(v, 'a validator');
          const r = runValidator(v, c.obj, c.oldObj, BUDGET, path('root'));
          assert.deepEqual(r.errors.map((e) => `${e.field}: ${fieldErrorText(e)}`), []);
          if (c.expectedCost !== undefined) assert.equal(BUDGET - r.remainingBudget, c.expectedCost);
          if (c.expectSkipped) assert.equal(r.remainingBudget, BUDGET, 'a skipped rule costs nothing');
        });
      }
      for (const [rule, contains] of Object.entries(c.errors ?? {})) {
        it(`fails: ${rule}`, () => {
          const s = withRule(c.schema, rule);
          const v = buildValidator(s, true);
          const r = runValidator(v, c.obj, c.oldObj, BUDGET, path('root'));
          assert.ok(r.errors.length > 0, 'errors expected');
          for (const e of r.errors) {
            assert.equal(e.type, 'FieldValueInvalid');
            const text = `${e.field}: ${fieldErrorText(e)}`;
            assert.ok(text.includes(contains), `${text}\nshould contain ${contains}`);
          }
        });
      }
    });
  }
});
