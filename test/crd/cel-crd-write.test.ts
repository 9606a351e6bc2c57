/**
 * What a CRD write refuses in its `x-kubernetes-validations`, with upstream's paths and texts:
 * apiextensions-apiserver 1.34's pkg/apis/apiextensions/validation/validation_test.go (the rule
 * field checks, transition rules where nothing correlates, optionalOldSelf, messageExpression, the
 * per-expression and per-schema estimated cost limits, suppression for unchanged schemas, stored
 * expressions' libraries) and its TestCostInfo and TestPerCRDEstimatedCost.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fieldErrorText, type FieldError } from '../../src/api/errors.ts';
import { compileSchemaRules, estimateCosts, preexistingExpressions, STATIC_ESTIMATED_COST_LIMIT, type CompiledRules } from '../../src/crd/cel/index.ts';
import { costErrorMessage, TotalCost } from '../../src/crd/cel/cost-limits.ts';
import { toStructural } from '../../src/crd/schema/convert.ts';
import type { JSONSchemaProps } from '../../src/crd/schema/types.ts';

const ROOT = 'spec.validation.openAPIV3Schema';
const text = (e: FieldError) => `${e.field}: ${fieldErrorText(e)}`;

function errorsOf(schema: JSONSchemaProps, options: Parameters<typeof compileSchemaRules>[1] = {}): FieldError[] {
  const r = compileSchemaRules(toStructural(schema), options);
  return 'errors' in r ? r.errors : [];
}
/** The errors as `<type> <field>`, upstream's validationMatch. */
const matches = (errs: FieldError[]) => errs.map((e) => `${e.type} ${e.field}`);
const obj = (properties: Record<string, JSONSchemaProps>, extra: JSONSchemaProps = {}): JSONSchemaProps => ({ type: 'object', properties, ...extra });

describe("each rule's own fields", () => {
  it('refuses an unsupported reason and accepts the four supported ones', () => {
    const errs = errorsOf({
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.a > 0', reason: 'InternalError', fieldPath: '.a' }],
      properties: {
        a: {
          type: 'number',
          'x-kubernetes-validations': ['FieldValueRequired', 'FieldValueInvalid', 'FieldValueDuplicate', 'FieldValueForbidden'].map((reason) => ({ rule: 'true', reason })),
        },
      },
    });
    assert.deepEqual(errs.map(text), [
      `${ROOT}.x-kubernetes-validations[0].reason: Unsupported value: "InternalError": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"`,
    ]);
  });

  it('checks fieldPaths against the schema (valid for array: upstream cases)', () => {
    const errs = errorsOf({
      type: 'object',
      'x-kubernetes-validations': [
        { rule: 'true', fieldPath: ".foo['b.c']['c\\a']" },
        { rule: 'true', fieldPath: "['a.c']" },
        { rule: 'true', fieldPath: '.a.c' },
        { rule: 'true', fieldPath: '.list[0]' },
        { rule: 'true', fieldPath: '   ' },
        { rule: 'true', fieldPath: '.' },
        { rule: 'true', fieldPath: '..' },
      ],
      properties: {
        'a.c': { type: 'number' },
        foo: obj({ 'b.c': obj({ 'c\x07': { type: 'number' } }) }),
        list: { type: 'array', items: obj({ a: { type: 'number' } }) },
      },
    });
    assert.deepEqual(matches(errs), [2, 3, 4, 4, 5, 6].map((i) => `FieldValueInvalid ${ROOT}.x-kubernetes-validations[${i}].fieldPath`));
    assert.deepEqual(errs.filter((e) => e.field.endsWith('[4].fieldPath')).map(text), [
      `${ROOT}.x-kubernetes-validations[4].fieldPath: Invalid value: "   ": must be non-empty if specified`,
      `${ROOT}.x-kubernetes-validations[4].fieldPath: Invalid value: "   ": must be a valid path`,
    ]);
  });

  it('refuses invalid fieldPaths and line breaks in them', () => {
    const rules = ['.list[0].b', '.list[0.b', '.list0].b', '.a.c', '.a.b.d', '.a\n.b'].map((fieldPath) => ({ rule: 'self.a.b.c > 0.0', fieldPath }));
    const errs = errorsOf({ type: 'object', 'x-kubernetes-validations': rules, properties: { a: obj({ b: obj({ c: { type: 'number' } }) }), list: { type: 'array', items: obj({ b: { type: 'string' } }) } } });
    assert.deepEqual(matches(errs), [0, 1, 2, 3, 4, 5, 5].map((i) => `FieldValueInvalid ${ROOT}.x-kubernetes-validations[${i}].fieldPath`));
    assert.ok(text(errs[5]!).endsWith('must not contain line breaks'));
  });

  it('requires a rule', () => {
    const errs = errorsOf(obj({ value: { type: 'integer', 'x-kubernetes-validations': [{ message: 'something' } as never, { rule: '   ', message: 'something' }] } }));
    assert.deepEqual(errs.map(text), [0, 1].map((i) => `${ROOT}.properties[value].x-kubernetes-validations[${i}].rule: Required value: rule is not specified`));
  });

  it('accepts a multi-line rule with a message', () => {
    assert.deepEqual(errorsOf(obj({ value: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self >= 0 &&\nself <= 100', message: 'value must be between 0 and 100 (inclusive)' }] } })), []);
  });

  it('refuses missing, multi-line and blank messages', () => {
    const errs = errorsOf(
      obj({
        value: {
          type: 'integer',
          'x-kubernetes-validations': [{ rule: 'self >= 0 &&\nself <= 100' }, { rule: 'self == 50', message: 'value requirements:\nmust be >= 0\nmust be <= 100 ' }, { rule: 'self == 50', message: ' ' }],
        },
      }),
    );
    const at = `${ROOT}.properties[value].x-kubernetes-validations`;
    assert.deepEqual(errs.map(text), [
      `${at}[0].message: Required value: message must be specified if rule contains line breaks`,
      `${at}[1].message: Invalid value: "value requirements:\\nmust be >= 0\\nmust be <= 100 ": must not contain line breaks`,
      `${at}[2].message: Invalid value: " ": must be non-empty if specified`,
    ]);
  });

  it('requires a messageExpression that is not only spaces', () => {
    const errs = errorsOf(obj({ f: { type: 'string', 'x-kubernetes-validations': [{ rule: 'self == "string value"', messageExpression: '     ' }] } }));
    assert.deepEqual(errs.map(text), [`${ROOT}.properties[f].x-kubernetes-validations[0].messageExpression: Required value: messageExpression must be non-empty if specified`]);
  });

  it('checks rules under allOf, anyOf, oneOf and not too', () => {
    const bad = { 'x-kubernetes-validations': [{ rule: ' ' }] };
    const errs = errorsOf(obj({ a: { type: 'string', allOf: [bad], anyOf: [bad], oneOf: [bad], not: bad } }));
    assert.deepEqual(matches(errs), ['not', 'allOf[0]', 'oneOf[0]', 'anyOf[0]'].map((j) => `FieldValueRequired ${ROOT}.properties[a].${j}.x-kubernetes-validations[0].rule`));
  });

  it('does not compile the rules of a node whose rule fields are wrong, or of the nodes above it', () => {
    const errs = errorsOf(obj({ a: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self.nope', reason: 'Bad' }] } }, { 'x-kubernetes-validations': [{ rule: 'self.nope2' }] }));
    assert.deepEqual(matches(errs), [`FieldValueNotSupported ${ROOT}.properties[a].x-kubernetes-validations[0].reason`]);
  });
});

describe('compiling the rules', () => {
  it('reports compile errors with the rule as the value', () => {
    const errs = errorsOf(obj({ value: { type: 'integer', 'x-kubernetes-validations': [{ rule: "self == 'abc'" }] } }));
    assert.deepEqual(errs.map(text), [
      `${ROOT}.properties[value].x-kubernetes-validations[0].rule: Invalid value: apiextensions.ValidationRule{Rule:"self == 'abc'", Message:"", MessageExpression:"", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: compilation failed: ERROR: <input>:1:6: found no matching overload for '_==_' applied to '(int, string)'\n | self == 'abc'\n | .....^`,
    ]);
  });

  it('validates rules under items, additionalProperties and escaped, unescaped and unescapable names', () => {
    const bad = (type = 'integer'): JSONSchemaProps => ({ type, 'x-kubernetes-validations': [{ rule: "self == 'abc'" }] });
    const errs = errorsOf(
      obj({
        l: { type: 'array', items: bad() },
        m: { type: 'object', additionalProperties: bad() },
        'f/2': obj({ m: { type: 'integer' } }, { 'x-kubernetes-validations': [{ rule: "self.m == 'abc'" }] }),
        'a@b': obj({ m: { type: 'integer' } }, { 'x-kubernetes-validations': [{ rule: "self.m == 'abc'" }] }),
      }),
    );
    assert.deepEqual(matches(errs), ['l].items', 'm].additionalProperties', 'f/2]', 'a@b]'].map((p) => `FieldValueInvalid ${ROOT}.properties[${p}.x-kubernetes-validations[0].rule`));
  });

  it('reports messageExpression errors at the messageExpression', () => {
    const errs = errorsOf(
      obj({
        a: { type: 'string', 'x-kubernetes-validations': [{ rule: "self == 'a'", messageExpression: "'abc" }] },
        b: { type: 'string', 'x-kubernetes-validations': [{ rule: "self == 'a'", messageExpression: '1 + 1' }] },
        c: { type: 'string', 'x-kubernetes-validations': [{ rule: "self == 'a'", message: 'm', messageExpression: "'value: ' + self" }] },
      }),
    );
    assert.deepEqual(matches(errs), [`FieldValueInvalid ${ROOT}.properties[a].x-kubernetes-validations[0].messageExpression`, `FieldValueInvalid ${ROOT}.properties[b].x-kubernetes-validations[0].messageExpression`]);
    assert.match(errs[0]!.detail!, /^messageExpression compilation failed: ERROR: <input>:1:1: Syntax error/);
    assert.equal(errs[1]!.detail, 'messageExpression must evaluate to a string');
  });

  it('lets rules reach metadata.name at the root', () => {
    assert.deepEqual(errorsOf({ type: 'object', 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'size(self.metadata.name) > 3' }], properties: { metadata: obj({ name: { type: 'string' } }) } }), []);
  });

  it('compiles new expressions with the libraries of the previous release, stored ones with all', () => {
    const schema = obj({ l: { type: 'array', maxItems: 5, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.sort() == self', messageExpression: "self.reverse()[0] > 0 ? 'descending' : 'not sorted'" }] } });
    const errs = errorsOf(schema);
    assert.deepEqual(matches(errs), [`FieldValueInvalid ${ROOT}.properties[l].x-kubernetes-validations[0].rule`]);
    assert.match(errs[0]!.detail!, /undeclared reference to 'sort'/);
    const ruleStored = { rules: new Set(['self.sort() == self']), messageExpressions: new Set<string>() };
    const errs2 = errorsOf(schema, { preexisting: ruleStored });
    assert.deepEqual(matches(errs2), [`FieldValueInvalid ${ROOT}.properties[l].x-kubernetes-validations[0].messageExpression`]);
    assert.deepEqual(errorsOf(schema, { preexisting: preexistingExpressions([schema]) }), []);
  });

  it('finds the expressions of every part of old schemas', () => {
    const p = preexistingExpressions([
      { type: 'object', properties: { a: { type: 'array', items: { type: 'string', 'x-kubernetes-validations': [{ rule: 'r1', messageExpression: 'm1' }] } } } },
      { type: 'object', allOf: [{ 'x-kubernetes-validations': [{ rule: 'r2' }] }], additionalProperties: { type: 'string', 'x-kubernetes-validations': [{ rule: 'r3' }] } },
      undefined,
    ]);
    assert.deepEqual([...p.rules].sort(), ['r1', 'r2', 'r3']);
    assert.deepEqual([...p.messageExpressions], ['m1']);
  });

  it('refuses a schema node rules cannot be declared for', () => {
    const errs = errorsOf(obj({ x: { 'x-kubernetes-preserve-unknown-fields': true, 'x-kubernetes-validations': [{ rule: 'true' }] } }));
    assert.deepEqual(errs.map(text), [`${ROOT}.properties[x].x-kubernetes-validations: Internal error: internal error: failed to construct type information for x-kubernetes-validations rules: unable to convert structural schema to CEL declarations`]);
  });

  it('puts errors under the path given', () => {
    const errs = errorsOf(obj({ v: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'nope' }] } }), { path: 'spec.versions[1].schema.openAPIV3Schema' });
    assert.deepEqual(matches(errs), ['FieldValueInvalid spec.versions[1].schema.openAPIV3Schema.properties[v].x-kubernetes-validations[0].rule']);
  });
});

describe('transition rules and optionalOldSelf', () => {
  const oldSelfItems = (list: JSONSchemaProps, optionalOldSelf?: boolean): JSONSchemaProps =>
    obj({ value: { type: 'array', ...list, items: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [optionalOldSelf ? { rule: 'self == oldSelf.orValue("")', optionalOldSelf } : { rule: 'self == oldSelf' }] } } });
  for (const optionalOldSelf of [undefined, true]) {
    const suffix = optionalOldSelf ? ' when optionalOldSelf is set' : '';
    for (const [name, list] of [
      ['list of type atomic', { 'x-kubernetes-list-type': 'atomic' }],
      ['list defaulting to type atomic', {}],
      ['list of type set', { maxItems: 10, 'x-kubernetes-list-type': 'set' }],
    ] as const) {
      it(`forbids a transition rule on an element of a ${name}${suffix}`, () => {
        const errs = errorsOf(oldSelfItems(list, optionalOldSelf));
        const rule = optionalOldSelf ? 'self == oldSelf.orValue(\\"\\")' : 'self == oldSelf';
        assert.deepEqual(errs.map(text), [`${ROOT}.properties[value].items.x-kubernetes-validations[0].rule: Invalid value: "${rule}": oldSelf cannot be used on the uncorrelatable portion of the schema within ${ROOT}.properties[value]`]);
      });
    }
  }
  it('allows a transition rule on an element of a map list, and on lists and maps themselves', () => {
    const rule = { 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] };
    assert.deepEqual(
      errorsOf(
        obj({
          ml: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'], items: { type: 'object', required: ['name'], properties: { name: { type: 'string', maxLength: 5 } }, ...rule }, ...rule },
          atomic: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 10 }, ...rule },
          set: { type: 'array', maxItems: 10, 'x-kubernetes-list-type': 'set', items: { type: 'string', maxLength: 10 }, ...rule },
          gm: { type: 'object', 'x-kubernetes-map-type': 'granular', properties: { sub: { type: 'string', maxLength: 10, ...rule } }, ...rule },
          am: { type: 'object', 'x-kubernetes-map-type': 'atomic', properties: { sub: { type: 'object', ...rule } }, ...rule },
        }),
      ),
      [],
    );
  });
  it('forbids a transition rule under a map of unrecognized type', () => {
    const errs = errorsOf(obj({ value: { type: 'object', 'x-kubernetes-map-type': 'future', properties: { subfield: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == oldSelf' }] } } } }));
    assert.deepEqual(matches(errs), [`FieldValueInvalid ${ROOT}.properties[value].properties[subfield].x-kubernetes-validations[0].rule`]);
  });
  for (const optionalOldSelf of [true, false]) {
    it(`forbids setting optionalOldSelf to ${optionalOldSelf} if oldSelf is not used`, () => {
      const errs = errorsOf(obj({ value: { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == "foo"', optionalOldSelf }] } }));
      assert.deepEqual(errs.map(text), [`${ROOT}.properties[value].x-kubernetes-validations[0].optionalOldSelf: Invalid value: ${optionalOldSelf}: may not be set if oldSelf is not used in rule`]);
    });
  }
  it('treats an iteration variable named oldSelf as no transition', () => {
    const errs = errorsOf(obj({ l: { type: 'array', maxItems: 3, items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.all(oldSelf, oldSelf > 0)', optionalOldSelf: true }] } }));
    assert.deepEqual(matches(errs), [`FieldValueInvalid ${ROOT}.properties[l].x-kubernetes-validations[0].optionalOldSelf`]);
  });
});

describe('estimated cost limits', () => {
  const nestedRule = (key: JSONSchemaProps, limits: { items?: number; props?: number } = {}): JSONSchemaProps =>
    obj({
      value: {
        type: 'array',
        ...(limits.items !== undefined ? { maxItems: limits.items } : {}),
        items: { type: 'object', ...(limits.props !== undefined ? { maxProperties: limits.props } : {}), additionalProperties: { type: 'object', required: ['key'], properties: { key } } },
        'x-kubernetes-validations': [{ rule: 'self.all(x, x.all(y, x[y].key == x[y].key))' }],
      },
    });
  const rulePath = `${ROOT}.properties[value].x-kubernetes-validations[0].rule`;
  const over = [`FieldValueForbidden ${rulePath}`, `FieldValueForbidden ${rulePath}`, `FieldValueForbidden ${ROOT}`];

  it('forbids a double-nested rule with no limit set', () => {
    const errs = errorsOf(nestedRule({ type: 'string' }));
    assert.deepEqual(matches(errs), over);
    assert.equal(
      errs[0]!.detail,
      'estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)',
    );
    assert.equal(errs[1]!.detail, 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema');
    assert.match(errs[2]!.detail!, /^x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of /);
  });
  it('forbids a double-nested rule with one limit set', () => assert.deepEqual(matches(errorsOf(nestedRule({ type: 'string', maxLength: 10 }))), over));
  it('allows a double-nested rule with three limits set', () => assert.deepEqual(errorsOf(nestedRule({ type: 'string', maxLength: 10 }, { items: 10, props: 10 })), []));
  it('allows a double-nested rule with one limit set on the outermost array', () => assert.deepEqual(errorsOf(nestedRule({ type: 'number' }, { items: 4 })), []));
  it('counts a rule under the root object once', () => assert.deepEqual(errorsOf(obj({ value: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 1024' }] } })), []));

  it('forbids rules whose costs together exceed the total limit, naming those of at least 1%', () => {
    const contains = { 'x-kubernetes-validations': [{ rule: "self.contains('keyword')" }] };
    const errs = errorsOf(
      obj({
        list: { type: 'array', maxItems: 100000, items: { type: 'string', maxLength: 5000, ...contains } },
        map: { type: 'object', maxProperties: 1000, additionalProperties: { type: 'string', maxLength: 5000, ...contains } },
        field: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 50 && self < 100' }] },
      }),
    );
    assert.deepEqual(matches(errs), [
      `FieldValueForbidden ${ROOT}.properties[list].items.x-kubernetes-validations[0].rule`,
      `FieldValueForbidden ${ROOT}.properties[list].items.x-kubernetes-validations[0].rule`,
      `FieldValueForbidden ${ROOT}.properties[map].additionalProperties.x-kubernetes-validations[0].rule`,
      `FieldValueForbidden ${ROOT}`,
    ]);
  });

  it('forbids a messageExpression over the per-expression limit', () => {
    const schema = obj({ f: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'true', messageExpression: 'self[0] + self[1] + self[2] + self[3] + self[4] + self[5] + self[6] + self[7]' }] } });
    const errs = errorsOf(schema);
    assert.deepEqual(errs.map(text), [
      `${ROOT}.properties[f].x-kubernetes-validations[0].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of 1.101006x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`,
    ]);
    // An update that leaves the version's schema alone is spared the per-expression limit.
    assert.deepEqual(errorsOf(schema, { unchangedSchema: true }), []);
  });

  it('keeps a rule with lowerAscii within the limit when sizes are bounded', () => {
    assert.deepEqual(errorsOf(obj({ f: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 5 }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.exists_one(y, x.lowerAscii() == y.lowerAscii()))' }] } })), []);
  });

  it('forbids a messageExpression over the per-CRD limit (not spared for unchanged schemas)', () => {
    const schema = obj({ f: { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'true', messageExpression: 'string(self[0]) + string(self[1]) + string(self[2])' }] } });
    const at = `${ROOT}.properties[f].x-kubernetes-validations[0].messageExpression`;
    assert.deepEqual(matches(errorsOf(schema)), [`FieldValueForbidden ${at}`, `FieldValueForbidden ${at}`, `FieldValueForbidden ${ROOT}`]);
    assert.deepEqual(matches(errorsOf(schema, { unchangedSchema: true })), [`FieldValueForbidden ${at}`, `FieldValueForbidden ${ROOT}`]);
  });

  it('estimates the costs a write weighs', () => {
    const schema = obj({
      l: { type: 'array', maxItems: 10, items: { type: 'string', maxLength: 5, 'x-kubernetes-validations': [{ rule: "self == 'a'", messageExpression: "'bad: ' + self" }] } },
      n: { type: 'integer', 'x-kubernetes-validations': [{ rule: 'self < 5' }] },
    });
    const { expressions, total } = estimateCosts(toStructural(schema));
    assert.deepEqual(
      expressions.map((e) => [e.path, e.cost]),
      [
        [`${ROOT}.properties[l].items.x-kubernetes-validations[0].rule`, 20n],
        [`${ROOT}.properties[l].items.x-kubernetes-validations[0].messageExpression`, 4n],
        [`${ROOT}.properties[n].x-kubernetes-validations[0].rule`, 2n],
      ],
    );
    assert.equal(total, 26n);
  });

  it("words the factor as upstream's getCostErrorMessage", () => {
    const m = (cost: bigint) => costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT).split(' (')[0];
    assert.equal(m(10_000_001n), 'estimated rule cost exceeds budget by factor of 1.000000x');
    assert.equal(m(14_999_999n), 'estimated rule cost exceeds budget by factor of 1.500000x');
    assert.equal(m(22_500_000n), 'estimated rule cost exceeds budget by factor of 2.2x');
    assert.equal(m(1_000_000_000n), 'estimated rule cost exceeds budget by factor of 100.0x');
    assert.equal(m(1_000_000_001n), 'estimated rule cost exceeds budget by factor of more than 100x');
  });
});

describe('cardinality (upstream TestCostInfo)', () => {
  // A leaf under the given nesting, its rule costing 2 per evaluation, so the estimate is 2 × cardinality.
  const leaf = (): JSONSchemaProps => ({ type: 'integer', 'x-kubernetes-validations': [{ rule: 'self > 0' }] });
  const cost = (schema: JSONSchemaProps) => estimateCosts(toStructural(schema)).expressions[0]!.cost;
  const arr = (items: JSONSchemaProps, maxItems?: number): JSONSchemaProps => ({ type: 'array', items, ...(maxItems !== undefined ? { maxItems } : {}) });
  const map = (values: JSONSchemaProps, maxProperties?: number): JSONSchemaProps => ({ type: 'object', additionalProperties: values, ...(maxProperties !== undefined ? { maxProperties } : {}) });
  it('object: 1', () => assert.equal(cost(obj({ a: leaf() })), 2n));
  it('array: maxItems', () => assert.equal(cost(obj({ a: arr(leaf(), 5) })), 10n));
  it('map: maxProperties', () => assert.equal(cost(obj({ a: map(leaf(), 10) })), 20n));
  it('array inside map: the product', () => assert.equal(cost(obj({ a: map(arr(leaf(), 5), 5) })), 50n));
  it('map inside object inside array', () => assert.equal(cost(obj({ a: arr(obj({ b: map(leaf(), 4) }), 2) })), 16n));
  it('unbounded: as many as fit into a request (3 MiB / (1 + 1))', () => assert.equal(cost(obj({ a: arr(leaf()) })), 2n * (3n * 1024n * 1024n / 2n)));
  it('unbounded array inside bounded map: unbounded', () => assert.equal(cost(obj({ a: map(arr(leaf()), 5) })), 2n * (3n * 1024n * 1024n / 2n)));
  it('integer overflow bounds check', () => assert.equal(cost(obj({ a: arr(arr(leaf(), 100), 2 ** 62) })), 2n ** 64n - 1n));
});

describe('the per-schema total (upstream TestPerCRDEstimatedCost)', () => {
  const cases: { name: string; costs: bigint[]; expensive: bigint[]; total: bigint }[] = [
    { name: 'no costs', costs: [], expensive: [], total: 0n },
    { name: 'one cost', costs: [1000000n], expensive: [1000000n], total: 1000000n },
    { name: 'one cost, ignored', costs: [900000n], expensive: [], total: 900000n },
    { name: '2 costs', costs: [5000000n, 25000000n], expensive: [25000000n, 5000000n], total: 30000000n },
    { name: '3 costs, one ignored', costs: [5000000n, 25000000n, 900000n], expensive: [25000000n, 5000000n], total: 30900000n },
    { name: '4 costs', costs: [16000000n, 50000000n, 34000000n, 50000000n], expensive: [50000000n, 50000000n, 34000000n, 16000000n], total: 150000000n },
    { name: '5 costs, one trimmed, one ignored', costs: [16000000n, 50000000n, 900000n, 34000000n, 50000000n, 50000001n], expensive: [50000001n, 50000000n, 50000000n, 34000000n], total: 200900001n },
    { name: 'costs do not overflow', costs: [(2n ** 64n - 1n) / 2n, (2n ** 64n - 1n) / 2n, 1n, 10n, 100n, 1000n], expensive: [(2n ** 64n - 1n) / 2n, (2n ** 64n - 1n) / 2n], total: 2n ** 64n - 1n },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const t = new TotalCost();
      for (const cost of c.costs) t.observe('p', cost);
      assert.deepEqual(
        t.mostExpensive.map((e) => e.cost),
        c.expensive,
      );
      assert.equal(t.total, c.total);
    });
  }
});

describe('compiling a stored CRD for serving', () => {
  it('skips the write checks and compiles every expression as stored', () => {
    const schema = toStructural(obj({ l: { type: 'array', items: { type: 'integer' }, 'x-kubernetes-validations': [{ rule: 'self.sort() == self', message: 'must be sorted' }] } }));
    const served = compileSchemaRules(schema, { check: false }) as CompiledRules;
    assert.ok(served.validator);
    assert.ok('errors' in compileSchemaRules(schema));
  });
  it('has no validator for a schema without rules', () => {
    assert.equal((compileSchemaRules(toStructural(obj({ a: { type: 'string' } }))) as CompiledRules).validator, undefined);
  });
});
