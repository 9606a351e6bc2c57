import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compileErrorOf, evalErrorOf, value } from './helpers.ts';

// Cases of Kubernetes' library/ip_test.go and library/cidr_test.go (1.34): an expression and what it
// evaluates to (values compared through string() or ==, as the upstream tests compare the objects).
const RESULTS: [string, unknown][] = [
  [`string(ip("192.168.0.1"))`, '192.168.0.1'],
  [`isIP("192.168.0.1")`, true],
  [`isIP("192.168.0.1.0")`, false],
  [`ip.isCanonical("127.0.0.1")`, true],
  [`ip("192.168.0.1").family()`, 4],
  [`ip("0.0.0.0").isUnspecified()`, true],
  [`ip("127.0.0.1").isUnspecified()`, false],
  [`ip("127.0.0.1").isLoopback()`, true],
  [`ip("1.2.3.4").isLoopback()`, false],
  [`ip("224.0.0.1").isLinkLocalMulticast()`, true],
  [`ip("224.0.1.1").isLinkLocalMulticast()`, false],
  [`ip("169.254.169.254").isLinkLocalUnicast()`, true],
  [`ip("192.168.0.1").isLinkLocalUnicast()`, false],
  [`ip("192.168.0.1").isGlobalUnicast()`, true],
  [`ip("255.255.255.255").isGlobalUnicast()`, false],
  [`string(ip("2001:db8::68"))`, '2001:db8::68'],
  [`isIP("2001:db8::68")`, true],
  [`isIP("2001:db8:::68")`, false],
  [`ip.isCanonical("2001:db8::68")`, true],
  [`ip.isCanonical("2001:DB8::68")`, false],
  [`ip("2001:db8::68").family()`, 6],
  [`ip("::").isUnspecified()`, true],
  [`ip("::1").isUnspecified()`, false],
  [`ip("::1").isLoopback()`, true],
  [`ip("2001:db8::abcd").isLoopback()`, false],
  [`ip("ff02::1").isLinkLocalMulticast()`, true],
  [`ip("fd00::1").isLinkLocalMulticast()`, false],
  [`ip("fe80::1").isLinkLocalUnicast()`, true],
  [`ip("fd80::1").isLinkLocalUnicast()`, false],
  [`ip("2001:db8::abcd").isGlobalUnicast()`, true],
  [`ip("ff00::1").isGlobalUnicast()`, false],
  [`string(ip("192.168.0.1"))`, '192.168.0.1'],
  [`type(ip("192.168.0.1")) == net.IP`, true],
  [`ip("10.0.0.1") == ip("10.0.0.1")`, true],
  [`ip("10.0.0.1") != ip("10.0.0.2")`, true],

  [`string(cidr("192.168.0.0/24"))`, '192.168.0.0/24'],
  [`cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))`, true],
  [`cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))`, false],
  [`cidr("192.168.0.0/24").containsIP("192.168.0.1")`, true],
  [`cidr("192.168.0.0/24").containsIP("192.168.1.1")`, false],
  [`cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))`, true],
  [`cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.1/32"))`, true],
  [`cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))`, false],
  [`cidr("192.168.0.0/24").containsCIDR(cidr("192.169.0.1/32"))`, false],
  [`cidr("192.168.0.0/24").containsCIDR("192.168.0.0/25")`, true],
  [`cidr("192.168.0.0/24").containsCIDR("192.168.0.0/23")`, false],
  [`cidr("192.168.0.0/24").ip() == ip("192.168.0.0")`, true],
  [`cidr("192.168.0.0/24").masked() == cidr("192.168.0.0/24")`, true],
  [`cidr("192.168.0.1/24").masked() == cidr("192.168.0.0/24")`, true],
  [`cidr("192.168.0.1/24") == cidr("192.168.0.0/24")`, false],
  [`string(cidr("192.168.0.1/24").ip())`, '192.168.0.1'],
  [`cidr("192.168.0.0/24").prefixLength()`, 24],
  [`string(cidr("2001:db8::/32"))`, '2001:db8::/32'],
  [`cidr("2001:db8::/32").containsIP(ip("2001:db8::1"))`, true],
  [`cidr("2001:db8::/32").containsIP(ip("2001:dc8::1"))`, false],
  [`cidr("2001:db8::/32").containsIP("2001:db8::1")`, true],
  [`cidr("2001:db8::/32").containsIP("2001:dc8::1")`, false],
  [`cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))`, true],
  [`cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/31"))`, false],
  [`cidr("2001:db8::/32").containsCIDR("2001:db8::/33")`, true],
  [`cidr("2001:db8::/32").containsCIDR("2001:db8::/31")`, false],
  [`cidr("2001:db8::/32").ip() == ip("2001:db8::")`, true],
  [`cidr("2001:db8::/32").masked() == cidr("2001:db8::/32")`, true],
  [`cidr("2001:db8:1::/32").masked() == cidr("2001:db8::/32")`, true],
  [`cidr("2001:db8::/32").prefixLength()`, 32],
  [`type(cidr("192.168.0.0/24")) == net.CIDR`, true],
  [`isCIDR("10.0.0.0/8")`, true],
  [`isCIDR("10.0.0.0")`, false],
  [`cidr("10.0.0.0/8").containsIP("2001:db8::1")`, false],
  [`cidr("0.0.0.0/0").containsCIDR("10.0.0.0/8")`, true],
];

for (const [expr, want] of RESULTS) test(`network: ${expr}`, () => assert.deepEqual(value(expr), want));

const ERRORS: [string, string][] = [
  [`ip("192.168.0.1.0")`, 'IP Address "192.168.0.1.0" parse error during conversion from string: ParseAddr("192.168.0.1.0"): IPv4 address too long'],
  [`ip.isCanonical("127.0.0.1.0")`, 'IP Address "127.0.0.1.0" parse error during conversion from string: ParseAddr("127.0.0.1.0"): IPv4 address too long'],
  [`ip("2001:db8:::68")`, 'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")'],
  [`ip.isCanonical("2001:db8:::68")`, 'IP Address "2001:db8:::68" parse error during conversion from string: ParseAddr("2001:db8:::68"): each colon-separated field must have at least one digit (at ":68")'],
  [`ip("fe80::1%eth0")`, 'IP address "fe80::1%eth0" with zone value is not allowed'],
  [`ip("::ffff:1.2.3.4")`, 'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed'],
  [
    `cidr("192.168.0.0/")`,
    'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("192.168.0.0/"): bad bits after slash: ""',
  ],
  [
    `cidr("2001:db8::/")`,
    'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("2001:db8::/"): bad bits after slash: ""',
  ],
  [`cidr("10.0.0.0")`, `network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0"): no '/'`],
  [`cidr("10.0.0.0/33")`, 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/33"): prefix length out of range'],
  [`cidr("10.0.0.0/08")`, 'network address parse error during conversion from string: network address parse error during conversion from string: netip.ParsePrefix("10.0.0.0/08"): bad bits after slash: "08"'],
  // containsIP with a string that is no IP: upstream's type assertion fails into "no such overload".
  [`cidr("10.0.0.0/8").containsIP("nope")`, 'no such overload'],
];

for (const [expr, err] of ERRORS) test(`network error: ${expr}`, () => assert.equal(evalErrorOf(expr), err));

test('network: isIP of a CIDR does not compile (ip_test)', () => {
  assert.match(compileErrorOf(`isIP(cidr("192.168.0.0/24"))`), /found no matching overload for 'isIP' applied to '\(net\.CIDR\)'/);
});
