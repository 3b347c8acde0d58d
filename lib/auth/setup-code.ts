import { randomInt } from 'node:crypto';
import { safeEqual } from './token-secret.js';

// No 0/O, 1/I/L: the code is read from a log and typed by a person.
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

/** 12 characters in groups of four (~59 bits), e.g. `K7QX-M2PA-9WJD`. */
export function newSetupCode(): string {
  const chars = Array.from({ length: 12 }, () => ALPHABET[randomInt(ALPHABET.length)]);
  return [chars.slice(0, 4), chars.slice(4, 8), chars.slice(8)].map((group) => group.join('')).join('-');
}

/** Case, spaces and dashes do not matter when the code is typed back. */
export function setupCodeMatches(expected: string, typed: string): boolean {
  const canon = (code: string) => code.toUpperCase().replace(/[\s-]/g, '');
  return safeEqual(canon(expected), canon(typed));
}
