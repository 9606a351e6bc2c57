import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonPatchAnnotationValue, mutationAnnotationValue } from '../../src/admission/webhook/mutation-annotations.ts';

// The values of the mutating webhook audit annotations, as Go's json.Marshal writes upstream's
// MutationAuditAnnotation and PatchAuditAnnotation (the patch being jsonpatch.Patch: a list of maps
// of member name to raw JSON). The server-level test (webhook-reinvocation.test.ts) reads them
// from the audit log; these are the spellings a webhook server there cannot easily send.

const value = (patch: string) => JSON.parse(jsonPatchAnnotationValue('cfg', 'hook.example.com', Buffer.from(patch))).patch;
const text = (patch: string) => jsonPatchAnnotationValue('cfg', 'hook.example.com', Buffer.from(patch));

test('mutation annotation: configuration, webhook, mutated in that order', () => {
  assert.equal(mutationAnnotationValue('c', 'w.example.com', true), '{"configuration":"c","webhook":"w.example.com","mutated":true}');
  assert.equal(mutationAnnotationValue('c', 'w.example.com', false), '{"configuration":"c","webhook":"w.example.com","mutated":false}');
});

test('patch annotation: the envelope and a plain patch', () => {
  assert.equal(
    text('[{"op":"add","path":"/metadata/labels/a","value":"true"}]'),
    '{"configuration":"cfg","webhook":"hook.example.com","patch":[{"op":"add","path":"/metadata/labels/a","value":"true"}],"patchType":"JSONPatch"}',
  );
});

test('strings with escaped quotes and backslashes are read whole; Go’s HTML escapes applied', () => {
  const patch = String.raw`[{"op":"add","path":"/a","value":"q\"<\\"},{"path":"/b","op":"add","value":[1, {"k": null}, true, "]}"]}]`;
  assert.equal(text(patch).split('"patch":')[1], String.raw`[{"op":"add","path":"/a","value":"q\"\u003c\\"},{"op":"add","path":"/b","value":[1,{"k":null},true,"]}"]}],"patchType":"JSONPatch"}`);
  assert.deepEqual(value(patch), [
    { op: 'add', path: '/a', value: 'q"<\\' },
    { op: 'add', path: '/b', value: [1, { k: null }, true, ']}'] },
  ]);
});

test('member names are decoded, sorted byte-wise and written as Go writes them; the last of a repeated one wins', () => {
  const patch = '[{"p\\u0061th": "/x", "op": "remove", "<k>": 1e2, "op": "test"}]';
  assert.equal(text(patch).split('"patch":')[1], '[{"\\u003ck\\u003e":1e2,"op":"test","path":"/x"}],"patchType":"JSONPatch"}');
});

test('line and paragraph separators are escaped; other text is kept as sent', () => {
  const patch = '[{"op":"add","path":"/a","value":"x\u2028y\u2029z é \\u00e9"}]';
  assert.equal(text(patch).split('"patch":')[1], '[{"op":"add","path":"/a","value":"x\\u2028y\\u2029z é \\u00e9"}],"patchType":"JSONPatch"}');
});
