import { describe, expect, it } from 'vitest';
import { isRealDay, priceSchema } from './prices.js';

describe('a price is valid from a real day', () => {
  it('takes days that exist and refuses ones Date.parse would roll over', () => {
    expect(isRealDay('2024-02-29')).toBe(true);
    expect(isRealDay('2024-02-31')).toBe(false);
    expect(isRealDay('2023-02-29')).toBe(false);
    expect(isRealDay('2026-13-01')).toBe(false);
    const price = { model: 'm', input: 1, output: 2, cacheRead: 0.1, cacheWrite: 1.25 };
    expect(priceSchema.safeParse({ ...price, from: '2024-03-02' }).success).toBe(true);
    expect(priceSchema.safeParse({ ...price, from: '2024-02-31' }).success).toBe(false);
  });
});
