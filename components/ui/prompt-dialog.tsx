'use client';

import * as Dialog from '@radix-ui/react-dialog';
import type { FormEvent } from 'react';
import { Button } from './button';
import { TextField } from './text-field';

interface Props {
  open: boolean;
  onOpenChange(open: boolean): void;
  title: string;
  description: string;
  label: string;
  type?: 'text' | 'password';
  minLength?: number;
  submitLabel: string;
  onSubmit(value: string): void;
}

/** Asks for one value in a Radix dialog (instead of window.prompt). */
export function PromptDialog({ open, onOpenChange, title, description, label, type = 'text', minLength, submitLabel, onSubmit }: Props) {
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const value = String(new FormData(event.currentTarget).get('value') ?? '');
    onOpenChange(false);
    onSubmit(value);
  }
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Portal>
        <Dialog.Overlay className="fixed inset-0 z-50 bg-black/40" />
        <Dialog.Content className="fixed left-1/2 top-1/2 z-50 w-[calc(100vw-2rem)] max-w-md -translate-x-1/2 -translate-y-1/2 rounded-lg border border-neutral-200 bg-white p-5 shadow-xl focus:outline-none dark:border-neutral-800 dark:bg-neutral-900">
          <Dialog.Title className="text-base font-semibold">{title}</Dialog.Title>
          <Dialog.Description className="mt-2 text-sm text-neutral-600 dark:text-neutral-400">{description}</Dialog.Description>
          <form onSubmit={submit} className="mt-4 space-y-4">
            <TextField label={label} name="value" type={type} minLength={minLength} required autoComplete={type === 'password' ? 'new-password' : 'off'} />
            <div className="flex justify-end gap-2">
              <Dialog.Close asChild>
                <Button variant="secondary">Cancel</Button>
              </Dialog.Close>
              <Button type="submit">{submitLabel}</Button>
            </div>
          </form>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
