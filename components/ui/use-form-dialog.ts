'use client';

import { useState } from 'react';

/** A form dialog's open state and its error line, the error cleared when it closes. */
export function useFormDialog() {
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) setError(null);
  };
  return { open, setOpen, error, setError, onOpenChange };
}
