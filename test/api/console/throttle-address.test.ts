import { describe, expect, it } from 'vitest';
import { throttleAddress } from '../../../src/api/console/throttle.js';

/** The address a sign-in try is counted against (src/api/console/throttle.ts). */
describe('throttleAddress', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    // An IPv4 client of a dual-stack socket is the same client as over IPv4.
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['::FFFF:cb00:7107', '203.0.113.7'],
    // IPv6 by its /64: one host usually holds all of it, and can pick any address inside.
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['2001:db8:1:2:3:4:1.2.3.4', '2001:db8:1:2::/64'],
    ['64:ff9b::1.2.3.4', '64:ff9b:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    // Not an address (a proxy's "unknown"): counted as given, so it still has a count.
    ['unknown', 'unknown'],
    ['', ''],
  ])('%s -> %s', (ip, key) => expect(throttleAddress(ip)).toBe(key));
});
