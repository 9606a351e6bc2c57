import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatChecker, isSupportedFormat } from '../../src/crd/schema/value-validation/formats.ts';

// kube-openapi's strfmt tests (default_test.go, date_test.go, duration_test.go, time_test.go,
// kubernetes-extensions_test.go), run against the registry the validator uses.
function check(format: string, valid: readonly string[], invalid: readonly string[]): void {
  const f = formatChecker(format);
  assert.ok(f, `format ${format} is registered`);
  for (const v of valid) assert.equal(f(v), true, `${format}: ${JSON.stringify(v)} should be valid`);
  for (const v of invalid) assert.equal(f(v), false, `${format}: ${JSON.stringify(v)} should be invalid`);
}

test('format uri: Go url.ParseRequestURI', () => check('uri', ['http://somewhere.com', 'http://somewhereelse.com', '/relative/path?q=1'], ['somewhere.com', '']));

test('format email: Go mail.ParseAddress', () =>
  check(
    'email',
    [
      'somebody@somewhere.com',
      'blah@gmail.com',
      'test@d.verylongtoplevel',
      'email+tag@gmail.com',
      '" "@example.com',
      '"Abc\\@def"@example.com',
      '"Fred Bloggs"@example.com',
      '"Joe\\\\Blow"@example.com',
      '"Abc@def"@example.com',
      'customer/department=shipping@example.com',
      '$A12345@example.com',
      '!def!xyz%abc@example.com',
      '_somename@example.com',
      "!#$%&'*+-/=?^_`{}|~@example.com",
      "Miles.O'Brian@example.com",
      'postmaster@☁→❄→☃→☀→☺→☂→☹→✝.ws',
      'root@localhost',
      'john@com',
      'api@piston.ninja',
      'Jane Doe <jane@example.com>',
      'jane@example.com (Jane Doe)',
      'jane@[192.168.0.1]',
    ],
    ['somebody@somewhere@com', 'Jane Doe', 'jane.doe', '<jane@example.com', '.jane@example.com', 'jane..doe@example.com', '', 'a@b, c@d', 'group: a@b, c@d;', 'jane@[not-an-ip]'],
  ));

test('format hostname', () => {
  const invalid = [
    'somewhere.com!',
    'user@email.domain',
    '1.1.1.1',
    'a'.repeat(256),
    ['x', 'y', 'a'.repeat(64)].join('.'),
    'www.example-.org',
    'www.--example.org',
    '-www.example.org',
    'www-.example.org',
    'www.d-.org',
    'www.-d.org',
    'www-',
    '-www',
    'www.ex ample.org',
    '_www.example.org',
    'www.ex;ample.org',
    'www.example_underscored.org',
    'www.詹姆斯.x',
    'a.b.c.d',
    '-xyz',
    'xyz-',
    'x.',
    'a.b.c.dot-',
    'a.b.c.é;ö',
  ];
  const valid = [
    'somewhere.com',
    '888.com',
    'a.com',
    'a.b.com',
    'a.b.c.com',
    'a.b.c.d.com',
    'a.b.c.d.e.com',
    '1.com',
    '1.2.com',
    '1.2.3.com',
    '1.2.3.4.com',
    '99.domain.com',
    '99.99.domain.com',
    '1wwworg.example.com',
    '1000wwworg.example.com',
    'xn--bcher-kva.example.com',
    'xn-80ak6aa92e.co',
    'xn-80ak6aa92e.com',
    'xn--ls8h.la',
    '☁→❄→☃→☀→☺→☂→☹→✝.ws',
    'www.example.onion',
    'www.example.ôlà',
    'ôlà.ôlà',
    'ôlà.ôlà.ôlà',
    'ex$ample',
    'localhost',
    'example',
    'x',
    'x-y',
    'a.b.c.dot',
    'www.example.org',
    'a.b.c.d.e.f.g.dot',
    'ex=ample.com',
    '<foo>',
    'www.example-hyphenated.org',
    'www.詹姆斯.org',
    'www.élégigôö.org',
    'www.詹姆斯.london',
  ];
  check('hostname', valid, invalid);
});

test('format ipv4 (leading zeros allowed), ipv6, cidr, mac', () => {
  check('ipv4', ['192.168.254.1', '127.0.0.1', '192.168.1.1', '192.168.1.01', '::ffff:1.2.3.4'], ['198.168.254.2.2', '::1', '256.1.1.1', '1.2.3']);
  check('ipv6', ['::1', '::2', '2001:db8::1', '::ffff:1.2.3.4'], ['127.0.0.1', 'fe80::1%eth0', ':::']);
  check('cidr', ['192.168.254.1/24', '192.0.2.1/24', '192.0.02.1/24', '2001:db8:a0b:12f0::1/32'], ['198.168.254.2', '2001:db8:a0b:12f0::1', '1.2.3.4/33']);
  check('mac', ['01:02:03:04:05:06', '06:05:04:03:02:01', '01-02-03-04-05-06', '0102.0304.0506', '00:00:00:00:fe:80:00:00:00:00:00:00:02:00:5e:10:00:00:00:01'], ['01:02:03:04:05', '01:02-03:04:05:06', 'zz:02:03:04:05:06']);
});

test('format uuid, uuid3, uuid4, uuid5', () => {
  check('uuid', ['a8098c1a-f86e-11da-bd1a-00112444be1e', 'A8098C1A-F86E-11DA-BD1A-00112444BE1E', 'a8098c1af86e11dabd1a00112444be1e'], ['not-a-uuid', 'a8098c1a-f86e-11da-bd1a-00112444be1']);
  check('uuid3', ['a3bb189e-8bf9-3888-9912-ace4e6543002'], ['not-a-uuid', 'a3bb189e-8bf9-4888-9912-ace4e6543002']);
  check('uuid4', ['f47ac10b-58cc-4372-a567-0e02b2c3d479'], ['not-a-uuid', 'f47ac10b-58cc-4372-c567-0e02b2c3d479']);
  check('uuid5', ['886313e1-3b8a-5372-9b90-0c9aee199e5d'], ['not-a-uuid', '886313e1-3b8a-4372-9b90-0c9aee199e5d']);
});

test('format isbn, isbn10, isbn13, hexcolor, rgbcolor, ssn, creditcard, password, byte, bsonobjectid', () => {
  check('isbn', ['0321751043', '978-0321751041'], ['836217463']);
  check('isbn10', ['0321751043', '0-321-75104-3', '080442957X'], ['836217463']);
  check('isbn13', ['978-0321751041', '978 0321751041'], ['978-0321751042']);
  check('hexcolor', ['#FFFFFF', '#000000', 'fff', '#abc'], ['#fffffffz', '#ff']);
  check('rgbcolor', ['rgb(255,255,255)', 'rgb(0,0,0)', 'rgb( 1 , 2 , 3 )'], ['rgb(300,0,0)', 'rgb(0,0)']);
  check('ssn', ['111-11-1111', '999 99 9999'], ['999 99 999', '11111111111']);
  check('creditcard', ['4111-1111-1111-1111', '4012-8888-8888-1881'], ['9999-9999-9999-999', '4111-1111-1111-1112']);
  check('password', ['super secret stuff here', ''], []);
  check('byte', [Buffer.from('This is a byte array with unprintable chars, but it also isn').toString('base64url'), 'YQ==', 'YWI='], ['ZWxpemFiZXRocG9zZXk', '', 'YQ']);
  check('bsonobjectid', ['507f1f77bcf86cd799439011'], ['507f1f77bcf86cd79943901', 'zzzf1f77bcf86cd799439011']);
});

test('format date', () => {
  check(
    'date',
    ['2017-12-22', '2000-02-29', '2400-02-29', '2014-12-15'],
    ['2017-1-1', '17-13-22', '2017-02-29', '1900-02-29', '2100-02-29', '2017-13-22', '2017-12-32', '20171-12-32', 'YYYY-MM-DD', '20-17-2017', '2017-12-22T01:02:03Z', 'yada', '1972/01/01'],
  );
});

test('format date-time (strfmt.IsDateTime)', () => {
  check(
    'date-time',
    ['2014-12-15T08:00:00.000Z', '2011-08-18T19:03:37.000+01:00', '2014-12-15T19:30:20.000Z', '0001-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z', '2014-12-15t19:30:20z'],
    ['zor', 'zorg', 'zorgTx', '1972-12-31Tx', '1972-12-31T24:40:00.000Z', '1972-12-31T23:63:00.000Z', '1972-12-31T23:59:60.000Z', '2014-12-15T08:00:00'],
  );
  // The normalised name works too.
  assert.equal(formatChecker('datetime')!('2014-12-15T08:00:00Z'), true);
});

test('format duration: Go durations or Scala-like ones', () => {
  const valid = ['0ms', '2ms', '1ns', '1us', '1µs', '1ms', '1s', '1m', '1h', '1hr', '1d', '1w', '1wk', '1nanoseconds', '1nanos', '1microseconds', '1micros', '1millis', '1milliseconds', '1second', '1sec', '1min', '1minute', '1hour', '1day', '1week', '1  ns', '1  w', '1  minute', '3 weeks', '1h30m'];
  check('duration', valid, ['yada', 'three week', '9999999999999999999999999999999999999999999999999999999 weeks', '12 parsecs', '12 y', '45 wekk', '45 weeekks', '']);
});

test('format k8s-short-name and k8s-long-name (1.34)', () => {
  const shortGood = ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', 'a'.repeat(63)];
  const shortBad = ['', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', '-a', '-1', '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2', '.', 'a.', '.a', 'a.b', '1.', '.1', '1.2', ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', 'a'.repeat(64), 'a-', '1-'];
  check('k8s-short-name', shortGood, shortBad);
  const longGood = ['a', 'a.a', 'a--1--2--b.a', '0.1', 'a.b.c.d.e', '1.2.3.4.5', 'a'.repeat(253)];
  const longBad = ['', 'A', '-a', '.', 'a.', '.a', 'a..b', '1..2', 'A.a', 'a.B.c.d.e', 'a@b', 'a:b', 'a'.repeat(254), 'a-', '1-'];
  check('k8s-long-name', longGood, longBad);
});

test('supported formats: what 1.34 validates in CRD schemas', () => {
  for (const f of ['bsonobjectid', 'uri', 'email', 'hostname', 'ipv4', 'ipv6', 'cidr', 'mac', 'uuid', 'uuid3', 'uuid4', 'uuid5', 'isbn', 'isbn10', 'isbn13', 'creditcard', 'ssn', 'hexcolor', 'rgbcolor', 'byte', 'password', 'date', 'duration', 'date-time', 'datetime', 'k8s-short-name', 'k8sshortname', 'k8s-long-name']) {
    assert.equal(isSupportedFormat(f), true, f);
    assert.ok(formatChecker(f), `${f} is in the registry`);
  }
  for (const f of ['int32', 'int64', 'float', 'double', 'unknown-format', 'binary']) assert.equal(isSupportedFormat(f), false, f);
});
