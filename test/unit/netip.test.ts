import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatAddr, parseAddr } from '../../src/api/go/netip.ts';

const show = (s: string) => {
  const r = parseAddr(s);
  return 'error' in r ? r.error : formatAddr(r);
};

// Expected texts follow Go's net/netip parser (ParseAddr, parseIPv4Fields, parseIPv6) and Addr.String.
test('IPv4 as Go parses and prints it', () => {
  assert.equal(show('1.2.3.4'), '1.2.3.4');
  assert.equal(show('01.2.3.4'), 'ParseAddr("01.2.3.4"): IPv4 field has octet with leading zero');
  assert.equal(show('1.2.3'), 'ParseAddr("1.2.3"): IPv4 address too short');
  assert.equal(show('1.2.3.4.5'), 'ParseAddr("1.2.3.4.5"): IPv4 address too long');
  assert.equal(show('1.2.3.256'), 'ParseAddr("1.2.3.256"): IPv4 field has value >255');
  assert.equal(show('1..2.3'), 'ParseAddr("1..2.3"): IPv4 field must have at least one digit (at ".2.3")');
  assert.equal(show('1.2.3.x'), 'ParseAddr("1.2.3.x"): unexpected character (at "x")');
  assert.equal(show('web'), 'ParseAddr("web"): unable to parse IP');
  assert.equal(show('%eth0'), 'ParseAddr("%eth0"): missing IPv6 address');
});

test('IPv6 as Go parses and prints it (RFC 5952)', () => {
  assert.equal(show('2001:DB8:0:0:0:0:0:1'), '2001:db8::1');
  assert.equal(show('0:0:0:0:0:0:0:0'), '::');
  assert.equal(show('1:0:0:1:0:0:0:1'), '1:0:0:1::1');
  assert.equal(show('::ffff:1.2.3.4'), '::ffff:1.2.3.4');
  assert.equal(show('fe80::1%eth0'), 'fe80::1%eth0');
  assert.equal(show('1:2'), 'ParseAddr("1:2"): address string too short');
  assert.equal(show('1::2::3'), 'ParseAddr("1::2::3"): multiple :: in address (at ":3")');
  assert.equal(show('12345::1'), 'ParseAddr("12345::1"): each group must have 4 or less digits (at "12345::1")');
  assert.equal(show('::1:'), 'ParseAddr("::1:"): colon must be followed by more characters (at ":")');
  assert.equal(show('1:2:3:4:5:6:7:8::'), 'ParseAddr("1:2:3:4:5:6:7:8::"): the :: must expand to at least one field of zeros');
  assert.equal(show('fe80::1%'), 'ParseAddr("fe80::1%"): zone must be a non-empty string');
});
