/** Runs once when the Next server starts, before it serves a request. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  // `next build` may evaluate this too; only a running server takes the data directory.
  if (process.env.NEXT_PHASE === 'phase-production-build') return;
  const { startServer } = await import('./server/startup');
  await startServer();
}
