'use client';

import type { ReactNode } from 'react';
import { DialogFrame } from './dialog-frame';

interface Props {
  open: boolean;
  onOpenChange(open: boolean): void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  onConfirm(): void;
  destructive?: boolean;
}

/** A confirmation (Radix alertdialog): Cancel has the focus first, so Enter never destroys by accident. */
export function ConfirmDialog({ open, onOpenChange, title, description, confirmLabel, onConfirm, destructive = true }: Props) {
  return (
    <DialogFrame
      open={open}
      onOpenChange={onOpenChange}
      title={title}
      description={description}
      action={{ label: confirmLabel, onClick: onConfirm, variant: destructive ? 'danger' : 'primary' }}
    />
  );
}
