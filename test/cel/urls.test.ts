import assert from 'node:assert/strict';
import { test } from 'node:test';
import { evalErrorOf, value } from './helpers.ts';

// The examples of Kubernetes' library/urls.go documentation (1.34).
const RESULTS: [string, unknown][] = [
  [`isURL('https://user:pass@example.com:80/path?query=val#fragment')`, true],
  [`isURL('/absolute-path')`, true],
  [`isURL('https://a:b:c/')`, false],
  [`isURL('../relative-path')`, false],
  [`url('/path').getScheme()`, ''],
  [`url('https://example.com/').getScheme()`, 'https'],
  [`url('https://example.com:80/').getHost()`, 'example.com:80'],
  [`url('https://example.com/').getHost()`, 'example.com'],
  [`url('https://[::1]:80/').getHost()`, '[::1]:80'],
  [`url('https://[::1]/').getHost()`, '[::1]'],
  [`url('/path').getHost()`, ''],
  [`url('https://example.com:80/').getHostname()`, 'example.com'],
  [`url('https://127.0.0.1:80/').getHostname()`, '127.0.0.1'],
  [`url('https://[::1]:80/').getHostname()`, '::1'],
  [`url('/path').getHostname()`, ''],
  [`url('https://example.com:80/').getPort()`, '80'],
  [`url('https://example.com/').getPort()`, ''],
  [`url('/path').getPort()`, ''],
  [`url('https://example.com/path').getEscapedPath()`, '/path'],
  [`url('https://example.com/path with spaces/').getEscapedPath()`, '/path%20with%20spaces/'],
  [`url('https://example.com').getEscapedPath()`, ''],
  [`url('https://example.com/path?k1=a&k2=b&k2=c').getQuery()`, { k1: ['a'], k2: ['b', 'c'] }],
  [`url('https://example.com/path?key with spaces=value with spaces').getQuery()`, { 'key with spaces': ['value with spaces'] }],
  [`url('https://example.com/path?').getQuery()`, {}],
  [`url('https://example.com/path').getQuery()`, {}],
  [`url('https://user:pass@example.com:80/path?query=val#fragment').getEscapedPath()`, '/path'],
  [`url('HTTPS://Example.com/').getScheme()`, 'https'],
  [`url('https://example.com/a%2Fb').getEscapedPath()`, '/a%2Fb'],
  [`url('https://example.com/?a=1%202&b=x+y').getQuery()`, { a: ['1 2'], b: ['x y'] }],
  [`url('https://example.com/a') == url('https://example.com/a')`, true],
  [`url('https://example.com/a') == url('https://example.com/b')`, false],
];

for (const [expr, want] of RESULTS) test(`url: ${expr}`, () => assert.deepEqual(value(expr), want));

const ERRORS: [string, string][] = [
  [`url('https://a:b:c/')`, 'URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host'],
  [`url('../relative-path')`, 'URL parse error during conversion from string: parse "../relative-path": invalid URI for request'],
  [`url('')`, 'URL parse error during conversion from string: parse "": empty url'],
  [`url('https://exa mple.com/')`, 'URL parse error during conversion from string: parse "https://exa mple.com/": invalid character " " in host name'],
  [`url('https://example.com/%zz')`, 'URL parse error during conversion from string: parse "https://example.com/%zz": invalid URL escape "%zz"'],
];

for (const [expr, err] of ERRORS) test(`url error: ${expr}`, () => assert.equal(evalErrorOf(expr), err));
