'use client';

import { useMutation } from '@tanstack/react-query';
import { TerminalSquare } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { DialogFrame } from '@/components/ui/dialog-frame';
import { FormMessage } from '@/components/ui/form-message';
import { TextField } from '@/components/ui/text-field';
import { useTRPC } from '@/trpc/client';
import type { RouterOutputs } from '@/trpc/types';

type ResumeFile = RouterOutputs['resume']['prepare'];
type Agent = ResumeFile['agent'];

const AGENTS: ReadonlyArray<{ agent: Agent; name: string }> = [
  { agent: 'claude', name: 'Claude Code' },
  { agent: 'codex', name: 'Codex' },
];

/** The transcript as a file the browser saves: its name is the one the agent looks for. */
function download(file: ResumeFile): void {
  const url = URL.createObjectURL(new Blob([file.content], { type: 'application/jsonl' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

function ResumeDialog({ sessionId, turnCount, agent, name, className }: { sessionId: string; turnCount: number; agent: Agent; name: string; className: string }) {
  const trpc = useTRPC();
  const prepare = useMutation(trpc.resume.prepare.mutationOptions());
  const [open, setOpen] = useState(false);
  const [turn, setTurn] = useState(String(turnCount));
  const [folder, setFolder] = useState('');
  const [file, setFile] = useState<ResumeFile | null>(null);
  const turnNumber = Number(turn);
  const turnError = Number.isInteger(turnNumber) && turnNumber >= 1 && turnNumber <= turnCount ? null : `A turn from 1 to ${turnCount}`;

  const submit = (event: FormEvent<HTMLFormElement>): void => {
    event.preventDefault();
    if (turnError) return;
    setFile(null);
    prepare.mutate(
      { sessionId, agent, turn: turnNumber, ...(folder.trim() ? { cwd: folder.trim() } : {}) },
      {
        onSuccess: (prepared) => {
          setFile(prepared);
          download(prepared);
        },
      },
    );
  };

  return (
    <DialogFrame
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (next) {
          setTurn(String(turnCount));
          setFile(null);
          prepare.reset();
        }
      }}
      trigger={
        <button type="button" className={className}>
          <TerminalSquare aria-hidden size={16} />
          {`Resume in ${name}`}
        </button>
      }
      title={`Resume in ${name}`}
      description={`The conversation up to a turn, as a ${name} session to continue in ${name} itself. Run through the recording proxy, that run is recorded here as a branch from that turn.`}
      submit={{ label: 'Download', disabled: prepare.isPending }}
      onSubmit={submit}
      width="lg"
    >
      <TextField label="Turn" type="number" min={1} max={turnCount} value={turn} onChange={(event) => setTurn(event.target.value)} error={turnError} required />
      <TextField label="Folder" value={folder} onChange={(event) => setFolder(event.target.value)} placeholder="The session's project folder" />
      <FormMessage error={prepare.error?.message ?? null} success={file ? `Downloaded ${file.fileName}: ${file.messages} messages up to turn ${file.turn}.` : null} />
      {file ? (
        <div className="space-y-2 text-sm">
          <p>
            Save it as <code className="break-all">{`${file.root}/${file.relativePath}`}</code>, then run:
          </p>
          <pre aria-label="Command to continue" className="overflow-x-auto rounded bg-neutral-100 p-2 text-xs dark:bg-neutral-800">
            {file.command}
          </pre>
        </div>
      ) : null}
    </DialogFrame>
  );
}

/**
 * DESIGN §14 "Resume in the agent", on the session page: "Resume in Claude Code" and "Resume in
 * Codex" download the branch up to a turn in the agent's own format and show the command that
 * continues it (the CLI's `entity-memory resume` writes the same file in place).
 */
export function ResumeInAgent({ sessionId, turnCount, className }: { sessionId: string; turnCount: number; className: string }) {
  if (turnCount < 1) return null;
  return (
    <>
      {AGENTS.map(({ agent, name }) => (
        <ResumeDialog key={agent} sessionId={sessionId} turnCount={turnCount} agent={agent} name={name} className={className} />
      ))}
    </>
  );
}
