import { describe, expect, it } from 'vitest';
import { describeSignInError } from './sign-in-messages';

describe('describeSignInError for single sign-on', () => {
  it('says in words why the provider’s sign-in was refused, not next-auth’s code', () => {
    expect(describeSignInError('OAuthCallback')).toMatch(/answer was refused: it was not meant for this server, came from another issuer, or was expired or already used/);
    expect(describeSignInError('oidc-domain-not-allowed')).toBe('Your email address is not in a domain allowed on this server. Ask the admin for access.');
    expect(describeSignInError('oidc-email-taken')).toMatch(/already exists here and signs in another way/);
    expect(describeSignInError('OAuthSignin')).toMatch(/could not be reached/);
  });

  it('keeps the rest as before', () => {
    expect(describeSignInError('CredentialsSignin')).toBe('Wrong email or password, or the account is disabled.');
    expect(describeSignInError('Too many failed sign-ins. Try again in 5 seconds.')).toBe('Too many failed sign-ins. Try again in 5 seconds.');
    expect(describeSignInError('toString')).toBe('toString');
  });
});
