'use client';

import type { FormEvent } from 'react';
import { DialogFrame } from './dialog-frame';
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
    <DialogFrame open={open} onOpenChange={onOpenChange} title={title} description={description} onSubmit={submit} submit={{ label: submitLabel }}>
      <TextField label={label} name="value" type={type} minLength={minLength} required autoComplete={type === 'password' ? 'new-password' : 'off'} />
    </DialogFrame>
  );
}
