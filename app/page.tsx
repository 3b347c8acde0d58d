export default function HomePage() {
  return (
    <main className="mx-auto max-w-2xl p-8">
      <h1 className="text-2xl font-semibold">Entity Memory</h1>
      <p className="mt-2 text-neutral-600 dark:text-neutral-400">
        Every agent conversation kept as replayable history in git.
      </p>
    </main>
  );
}
