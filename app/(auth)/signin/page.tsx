import { redirect } from 'next/navigation';
import { OidcSignInButton } from '@/components/auth/oidc-sign-in-button';
import { SetupAdminForm } from '@/components/auth/setup-admin-form';
import { SignInForm } from '@/components/auth/sign-in-form';
import { describeSignInError, safeCallbackUrl } from '@/components/auth/sign-in-messages';
import { SignUpForm } from '@/components/auth/sign-up-form';
import { Card } from '@/components/ui/card';
import { getRequestContext, getServerCaller } from '@/trpc/server';

export const metadata = { title: 'Sign in · Entity Memory' };

type SearchParams = Promise<Record<string, string | string[] | undefined>>;

export default async function SignInPage({ searchParams }: { searchParams: SearchParams }) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(typeof params.callbackUrl === 'string' ? params.callbackUrl : undefined);
  if ((await getRequestContext()).user) redirect(callbackUrl);
  const status = await (await getServerCaller()).auth.status();
  // next-auth sends failed non-JS sign-ins back here with ?error=.
  const error = typeof params.error === 'string' ? describeSignInError(params.error) : null;
  // A share link under OPENPROGRAM_SHARING=login sends a signed-out reader here: say where it leads.
  const toSharedConversation = /^\/s\/[^/?#]+$/.test(callbackUrl);

  return (
    <div className="min-h-screen bg-neutral-50 dark:bg-neutral-950">
      <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center gap-6 px-4 py-12">
        <div className="text-center">
          <h1 className="text-2xl font-semibold">Entity Memory</h1>
          <p className="mt-1 text-sm text-neutral-600 dark:text-neutral-400">Every agent conversation kept as replayable history in git.</p>
        </div>
        {toSharedConversation && !status.needsSetup ? (
          <p role="note" aria-label="Shared conversation" className="rounded-md border border-blue-200 bg-blue-50 px-3 py-2 text-sm text-blue-900 dark:border-blue-900 dark:bg-blue-950/50 dark:text-blue-100">
            This link leads to a conversation someone shared with the people who have an account here. Sign in to read it; you come back to it
            right after.
          </p>
        ) : null}
        <Card>{status.needsSetup ? <SetupAdminForm /> : <SignInForm callbackUrl={callbackUrl} initialError={error} />}</Card>
        {status.singleSignOn ? <OidcSignInButton providerName={status.singleSignOn.name} callbackUrl={callbackUrl} /> : null}
        {!status.needsSetup && status.signupOpen ? (
          <Card>
            <SignUpForm />
          </Card>
        ) : null}
      </main>
    </div>
  );
}
