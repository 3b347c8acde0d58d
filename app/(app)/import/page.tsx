import { ImportForm } from '@/components/import/import-form';
import { getServerCaller, requireUser } from '@/trpc/server';

export const metadata = { title: 'Import · Entity Memory' };

/** DESIGN §10 "Import": files, folders and zips from Claude Code, Codex, ChatGPT, OpenProgram and our own export, with progress and a report. */
export default async function ImportPage() {
  await requireUser();
  const prefs = await (await getServerCaller()).user.prefs();
  return (
    <div className="mx-auto max-w-3xl space-y-4 px-4 py-6">
      <h1 className="text-2xl font-semibold">Import</h1>
      <p className="text-sm text-neutral-600 dark:text-neutral-400">
        Bring in history from other tools: Claude Code transcripts (<code>~/.claude/projects</code>), Codex CLI rollouts (<code>~/.codex/sessions</code>) and a
        ChatGPT export (<code>conversations.json</code> or the zip), an OpenProgram state directory (OpenProgram is the agent program whose session format Entity Memory
        keeps; its folder <code>~/.openprogram</code>, as a folder or a zip: its sessions keep their ids, branches and git history), and sessions exported from Entity Memory (a session&apos;s JSON or the all-sessions zip), with their ids kept.
        Importing the same files again adds only what is new.{' '}
        {prefs.redactSecrets ? 'API keys, tokens and private keys are redacted before anything is written.' : 'Redaction is off in your Settings: secrets are imported as they are.'}
      </p>
      <ImportForm />
    </div>
  );
}
