import { describe, expect, it } from 'vitest';
import { malformedAuthBody } from './auth-body';

describe('malformedAuthBody (before next-auth parses a sign-in POST)', () => {
  it('refuses a JSON body that does not parse or is not an object, and passes forms and objects through', () => {
    expect(malformedAuthBody('application/json', '{"username":"a"')).toBe('the body is not valid JSON');
    expect(malformedAuthBody('application/json; charset=utf-8', '%E0%A4%A')).toBe('the body is not valid JSON');
    for (const notObject of ['null', '[1]', '"x"', '3']) expect(malformedAuthBody('application/json', notObject), notObject).toBe('the body must be a JSON object');
    expect(malformedAuthBody('application/json', '{"username":"a","password":"b"}')).toBeNull();
    expect(malformedAuthBody('application/x-www-form-urlencoded', '%E0%A4%A')).toBeNull();
    expect(malformedAuthBody(null, 'anything')).toBeNull();
  });
});
