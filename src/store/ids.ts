import { randomInt } from 'node:crypto';

/**
 * Platform-style numeric string ids ("1795374186792123"): creation time in ms followed by three
 * random digits, so ids sort by creation time and two processes rarely collide (a collision
 * is caught by the unique _id index and retried by the caller).
 */
export function newNumericId(): string {
  return `${Date.now()}${randomInt(0, 1000).toString().padStart(3, '0')}`;
}
