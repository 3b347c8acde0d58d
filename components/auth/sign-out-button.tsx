'use client';

import { signOutAndForget } from './sign-out';
import { Button } from '@/components/ui/button';

export function SignOutButton() {
  return (
    <Button variant="secondary" onClick={() => void signOutAndForget()}>
      Sign out
    </Button>
  );
}
