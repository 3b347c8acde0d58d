'use client';

import { useMutation } from '@tanstack/react-query';
import { useTRPC } from '@/trpc/client';
import { AccountForm } from './account-form';

/** Shown only while the admin has opened self sign-up. */
export function SignUpForm() {
  const trpc = useTRPC();
  const signup = useMutation(trpc.auth.signup.mutationOptions());
  return (
    <AccountForm
      titleId="sign-up-title"
      title="Create an account"
      emailLabel="Email"
      submitLabel="Sign up"
      submitVariant="secondary"
      pending={signup.isPending}
      create={({ email, password }) => signup.mutateAsync({ email, password })}
    />
  );
}
