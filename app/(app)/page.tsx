import Link from 'next/link';
import { requireUser } from '@/trpc/server';

export default async function HomePage() {
  const user = await requireUser();
  return (
    <section className="space-y-4" aria-labelledby="home-title">
      <h1 id="home-title" className="text-2xl font-semibold">
        Welcome, {user.email}
      </h1>
      <p className="text-neutral-600 dark:text-neutral-400">
        Entity Memory keeps every agent conversation as replayable history in git. Agents write to it with an API token.
      </p>
      <ul className="list-inside list-disc space-y-1 text-sm">
        <li>
          <Link href="/settings" className="text-blue-700 underline dark:text-blue-400">
            Settings
          </Link>
          : change your password and create API tokens for your agents.
        </li>
        {user.admin ? (
          <li>
            <Link href="/admin" className="text-blue-700 underline dark:text-blue-400">
              Admin
            </Link>
            : create, disable and reset users; open or close sign-up.
          </li>
        ) : null}
      </ul>
    </section>
  );
}
