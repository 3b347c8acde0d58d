'use client';

import { signIn } from 'next-auth/react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { safeCallbackUrl } from './sign-in-messages';

/** Single sign-on (DESIGN §17): next-auth's code flow with the provider named by OPENPROGRAM_OIDC_NAME or the issuer's host. */
export function OidcSignInButton({ providerName, callbackUrl }: { providerName: string; callbackUrl?: string }) {
  const [pending, setPending] = useState(false);
  return (
    <Button
      variant="secondary"
      className="w-full"
      aria-busy={pending}
      disabled={pending}
      onClick={() => {
        setPending(true);
        // Leaves for the provider; a refusal comes back to /signin?error=.
        void signIn('oidc', { callbackUrl: safeCallbackUrl(callbackUrl) });
      }}
    >
      Sign in with {providerName}
    </Button>
  );
}
