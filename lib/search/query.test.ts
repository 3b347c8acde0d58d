import { describe, expect, it } from 'vitest';
import { holdsShortTerms, MAX_QUERY_CHARS, parseQuery } from './query.js';

describe('parseQuery', () => {
  it('quotes every long term, so FTS5 syntax in a query is only text', () => {
    expect(parseQuery('retry policy').match).toBe('"retry" AND "policy"');
    expect(parseQuery('a"b OR c* NEAR(x)').match).toBe('"a""b" AND "NEAR(x)"');
    expect(parseQuery('col:val').match).toBe('"col:val"');
  });

  it('keeps one- and two-character terms (Chinese words) for the substring fallback', () => {
    expect(parseQuery('数据')).toEqual({ terms: ['数据'], match: null, short: ['数据'] });
    expect(parseQuery('Go parse_date')).toEqual({ terms: ['Go', 'parse_date'], match: '"parse_date"', short: ['go'] });
  });

  it('takes control characters (NUL among them, which ends a string in SQLite) as spaces', () => {
    expect(parseQuery('retry\u0000policy\u0007').match).toBe('"retry" AND "policy"');
    expect(() => parseQuery('\u0000\u0001')).toThrow('the query is empty');
  });

  it('counts code points, not UTF-16 units', () => {
    // two emoji are four UTF-16 units but two characters: too short for the trigram index
    expect(parseQuery('😀😀').match).toBeNull();
  });

  it('refuses an empty query and one that is too long', () => {
    expect(() => parseQuery('   ')).toThrow('the query is empty');
    expect(() => parseQuery('x'.repeat(MAX_QUERY_CHARS + 1))).toThrow(`longer than ${MAX_QUERY_CHARS}`);
  });

  it('holdsShortTerms is case-insensitive and needs every term', () => {
    expect(holdsShortTerms('Go 语言', ['go', '语言'])).toBe(true);
    expect(holdsShortTerms('Go 语言', ['go', '数据'])).toBe(false);
  });
});
