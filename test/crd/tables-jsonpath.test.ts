/**
 * client-go JSONPath as CRD printer columns use it (AllowMissingKeys): parsing and evaluation,
 * with cases from k8s.io/client-go/util/jsonpath jsonpath_test.go (store data, Kubernetes nodes).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { findResults, JsonPathError, parseJsonPath, printResult } from '../../src/crd/tables/jsonpath.ts';

/** FindResults then PrintResults of every result, space-separated, as kubectl -o jsonpath prints one template part. */
function run(template: string, data: unknown): string {
  return findResults(parseJsonPath(template), data).map((values) => values.map(printResult).join(' ')).join('');
}

const store = {
  Store: {
    Book: [
      { Category: 'reference', Author: 'Nigel Rees', Title: 'Sayings of the Centery', Price: 8.95 },
      { Category: 'fiction', Author: 'Evelyn Waugh', Title: 'Sword of Honour', Price: 12.99 },
      { Category: 'fiction', Author: 'Herman Melville', Title: 'Moby Dick', Isbn: '0-553-21311-3', Price: 8.99 },
    ],
    Bicycle: [
      { Color: 'red', Price: 19.95, IsNew: true },
      { Color: 'green', Price: 20.01, IsNew: false },
    ],
    Labels: { engineer: 10, 'web/html': 15, 'k8s-app': 20 },
    Employees: { jason: 'manager', dan: 'clerk' },
  },
};

describe('JSONPath on store data', () => {
  const cases: Array<[string, string, string]> = [
    ['plain text', 'hello jsonpath', 'hello jsonpath'],
    // Upstream walks Go structs in field order; a decoded map has no order in Go, so keys go sorted here.
    ['recursive prices', '{..Price}', '19.95 20.01 8.95 12.99 8.99'],
    ['array slice', '{.Store.Book[0:2].Author}', 'Nigel Rees Evelyn Waugh'],
    ['single index', '{.Store.Book[1].Title}', 'Sword of Honour'],
    ['negative index', '{.Store.Book[-1].Title}', 'Moby Dick'],
    ['open slice', '{.Store.Book[1:].Author}', 'Evelyn Waugh Herman Melville'],
    ['slice with step', '{.Store.Book[0:3:2].Author}', 'Nigel Rees Herman Melville'],
    ['wildcard array', '{.Store.Book[*].Author}', 'Nigel Rees Evelyn Waugh Herman Melville'],
    ['filter less than', '{.Store.Book[?(@.Price<10.0)].Price}', '8.95 8.99'],
    ['filter equality', '{.Store.Book[?(@.Category=="fiction")].Author}', 'Evelyn Waugh Herman Melville'],
    ['filter single quotes', "{.Store.Book[?(@.Category=='reference')].Author}", 'Nigel Rees'],
    ['filter existence', '{.Store.Book[?(@.Isbn)].Title}', 'Moby Dick'],
    ['filter bool', '{.Store.Bicycle[?(@.IsNew==true)].Color}', 'red'],
    ['union of indexes', '{.Store.Book[0,2].Title}', 'Sayings of the Centery Moby Dick'],
    ['union of keys', "{.Store.Employees['jason','dan']}", 'manager clerk'],
    ['dict key with slash', "{.Store.Labels['web/html']}", '15'],
    ['field with slash', '{.Store.Labels.web/html}', '15'],
    ['field with dash', '{.Store.Labels.k8s-app}', '20'],
    ['boolean text', '{.Store.Bicycle[0].IsNew}', 'true'],
    ['object as JSON, sorted keys', '{.Store.Employees}', '{"dan":"clerk","jason":"manager"}'],
    ['array as JSON', '{.Store.Bicycle[1]}', '{"Color":"green","IsNew":false,"Price":20.01}'],
    ['missing key allowed', '{.Store.Nothing}', ''],
    ['root and current markers', '{$.Store.Book[0].Category}', 'reference'],
  ];
  for (const [name, template, want] of cases) {
    it(name, () => assert.equal(run(template, store), want));
  }

  it('the wildcard field walks a map by key', () => {
    assert.equal(run('{.Store.Employees.*}', store), 'clerk manager');
  });
});

describe('JSONPath on Kubernetes nodes', () => {
  const nodes = {
    kind: 'List',
    items: [
      {
        kind: 'None',
        metadata: { name: '127.0.0.1', labels: { 'kubernetes.io/hostname': '127.0.0.1' } },
        status: {
          capacity: { cpu: '4' },
          addresses: [{ type: 'LegacyHostIP', address: '127.0.0.1' }],
        },
      },
      {
        kind: 'None',
        metadata: { name: '127.0.0.2', labels: { 'kubernetes.io/hostname': '127.0.0.2' } },
        status: {
          capacity: { cpu: '8' },
          addresses: [
            { type: 'LegacyHostIP', address: '127.0.0.2' },
            { type: 'another', address: '127.0.0.3' },
          ],
        },
      },
    ],
    users: [
      { name: 'myself', user: {} },
      { name: 'e2e', user: { username: 'admin', password: 'secret' } },
    ],
  };
  const cases: Array<[string, string, string]> = [
    ['names', '{.items[*].metadata.name}', '127.0.0.1 127.0.0.2'],
    ['filtered addresses', '{.items[*].status.addresses[?(@.type=="LegacyHostIP")].address}', '127.0.0.1 127.0.0.2'],
    ['capacity', '{.items[*].status.capacity.cpu}', '4 8'],
    ['escaped dot in a key', '{.items[0].metadata.labels.kubernetes\\.io/hostname}', '127.0.0.1'],
    ['filter on the user', '{.users[?(@.name=="e2e")].user.password}', 'secret'],
    ['recursive names', '{..name}', '127.0.0.1 127.0.0.2 myself e2e'],
    ['last item', '{.items[-1:].metadata.name}', '127.0.0.2'],
  ];
  for (const [name, template, want] of cases) {
    it(name, () => assert.equal(run(template, nodes), want));
  }
});

describe('JSONPath errors', () => {
  const parseErrors: Array<[string, string]> = [
    ['{.hello', 'unclosed action'],
    ['{.items[1}', 'unterminated array'],
    ['{.items[a]}', 'invalid array index a'],
    ['{.items[?(@.a==1}', 'unterminated filter'],
    ['{.items[?(@.a==1)}', 'unclosed array expect ]'],
    ['{range .items}', 'unrecognized identifier range'],
    ['{.a....b}', 'invalid multiple recursive descent'],
    ['{#}', "unrecognized character in action: U+0023 '#'"],
  ];
  for (const [template, message] of parseErrors) {
    it(`parse ${template}`, () => assert.throws(() => parseJsonPath(template), new JsonPathError(message)));
  }

  const evalErrors: Array<[string, unknown, string]> = [
    ['{.a[3]}', { a: [1, 2] }, 'array index out of bounds: index 3, length 2'],
    ['{.a[0:5]}', { a: [1, 2] }, 'array index out of bounds: index 4, length 2'],
    ['{.a[2:1]}', { a: [1, 2, 3] }, 'starting index 2 is greater than ending index 1'],
    ['{.a[0:2:0]}', { a: [1, 2] }, 'step must be > 0'],
    ['{.a[0]}', { a: 'str' }, 'string is not array or slice'],
    ['{.a[?(@.x<1)]}', { a: [{ x: 'y' }] }, 'incompatible types for comparison'],
    ['{.a[*].b}', { a: [{ b: [1] }] }, ''],
  ];
  for (const [template, data, message] of evalErrors) {
    it(`evaluate ${template}`, () => {
      if (message === '') assert.doesNotThrow(() => findResults(parseJsonPath(template), data));
      else assert.throws(() => findResults(parseJsonPath(template), data), new JsonPathError(message));
    });
  }

  it('an empty slice asks for nothing and is no error', () => {
    assert.deepEqual(findResults(parseJsonPath('{.a[1:1]}'), { a: [1] }), [[]]);
  });

  it('a filter that cannot compare (int field, float literal) is an error', () => {
    assert.throws(() => findResults(parseJsonPath('{.a[?(@.n<1.5)]}'), { a: [{ n: 1 }] }), /incompatible types/);
  });

  it('null compares unequal without error', () => {
    assert.equal(run('{.a[?(@.n!="x")].id}', { a: [{ n: null, id: 'k' }] }), 'k');
  });
});

describe('printResult', () => {
  it('renders values as fmt.Fprint and json.Marshal do', () => {
    assert.equal(printResult('s'), 's');
    assert.equal(printResult(7), '7');
    assert.equal(printResult(3.1415926), '3.1415926');
    assert.equal(printResult(1.5e-7), '1.5e-07');
    assert.equal(printResult(false), 'false');
    assert.equal(printResult(null), '<no value>');
    assert.equal(printResult({ b: '<', a: 1 }), '{"a":1,"b":"\\u003c"}');
    assert.equal(printResult([1, 'x']), '[1,"x"]');
  });
});
