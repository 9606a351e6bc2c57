import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowedAliasRatio } from '../../src/codecs/yaml-expansion.ts';
import { parseYaml, YamlDecodeError, YamlTooLargeError } from '../../src/codecs/yaml.ts';

const EXCESSIVE = 'yaml: document contains excessive aliasing';

/** `levels` anchors, each a sequence of `fanout` aliases of the one before (the first holds strings). */
function laughs(levels: number, fanout: number): string {
  const lines = [`l1: &l1 [${Array(fanout).fill('"lol"').join(', ')}]`];
  for (let i = 2; i <= levels; i++) lines.push(`l${i}: &l${i} [${Array(fanout).fill(`*l${i - 1}`).join(', ')}]`);
  return lines.join('\n');
}

function refusal(text: string, maxBytes?: number): Error {
  try {
    parseYaml(text, { maxBytes });
  } catch (err) {
    return err as Error;
  }
  assert.fail('expected the document to be refused');
}

test("the alias ratio is go-yaml's: 99% up to 400,000 decoded nodes, 10% from 4,000,000, linear between", () => {
  assert.equal(allowedAliasRatio(1_000), 0.99);
  assert.equal(allowedAliasRatio(400_000), 0.99);
  assert.ok(Math.abs(allowedAliasRatio(2_200_000) - 0.545) < 1e-9);
  assert.equal(allowedAliasRatio(4_000_000), 0.1);
  assert.equal(allowedAliasRatio(40_000_000), 0.1);
});

test('nested aliases that make nearly all of a document are refused; a few levels of them are not', () => {
  assert.ok(parseYaml(laughs(3, 10)));
  const err = refusal(laughs(4, 10));
  assert.ok(err instanceof YamlDecodeError);
  assert.equal(err.message, EXCESSIVE);
  assert.equal(refusal(laughs(9, 9)).message, EXCESSIVE);
});

test("go-yaml's limit cases: 1000 KB of maps parses; the same with 100 aliases of it is excessive aliasing", () => {
  const maps = `a: &a [{a}${',{a}'.repeat((1000 * 1024) / 4 - 1)}]`;
  assert.equal((parseYaml(maps) as { a: unknown[] }).a.length, (1000 * 1024) / 4);
  const aliased = `{a: &a [{a}${',{a}'.repeat((1000 * 1024) / 4 - 100)}], b: &b [*a${',*a'.repeat(99)}]}`;
  assert.equal(refusal(aliased).message, EXCESSIVE);
});

test('an anchor that holds itself ends in the budget instead of looping', () => {
  assert.equal(refusal('a: &x [*x]').message, EXCESSIVE);
});

test('a decoded value larger than maxBytes is refused, counting every aliased copy', () => {
  const text = `a: &s "${'x'.repeat(1000)}"\nb: [*s, *s, *s]\n`;
  assert.ok(parseYaml(text, { maxBytes: 5000 }));
  const err = refusal(text, 3000);
  assert.ok(err instanceof YamlTooLargeError);
  assert.equal(err.limit, 3000);
});

test('the value returned is a tree: aliased places are copies', () => {
  const doc = parseYaml('a: &m {k: 1}\nb: *m\n') as Record<string, Record<string, number>>;
  assert.notEqual(doc.a, doc.b);
  doc.a.k = 2;
  assert.equal(doc.b.k, 1);
});
