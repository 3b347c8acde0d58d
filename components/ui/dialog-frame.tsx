'use client';

import * as AlertDialog from '@radix-ui/react-alert-dialog';
import * as Dialog from '@radix-ui/react-dialog';
import type { FormEvent, ReactNode } from 'react';
import { Button } from './button';
import { cn } from './cn';

/** A question: Radix alertdialog, Cancel has the focus first, the action closes it. */
interface Question {
  action: { label: string; onClick(): void; variant: 'primary' | 'danger' };
}

/** A form: Radix dialog with the fields (children), then Cancel and the submit button. */
interface Form {
  onSubmit(event: FormEvent<HTMLFormElement>): void;
  submit: { label: string; disabled?: boolean };
  children: ReactNode;
}

type Props = (Question | Form) & {
  open?: boolean;
  onOpenChange?(open: boolean): void;
  /** the button that opens it (an uncontrolled dialog, or one that also has `open`) */
  trigger?: ReactNode;
  title: ReactNode;
  description: ReactNode;
  /** compact: components/ui's small questions; panel: the projects page's (larger title, the page's ground) */
  look?: 'compact' | 'panel';
  width?: 'md' | 'lg';
};

const LOOKS = {
  // the buttons' focus ring is offset by the panel's own ground
  compact: {
    overlay: 'z-50',
    content: 'rounded-lg shadow-xl focus:outline-none dark:bg-neutral-900',
    title: 'text-base',
    description: 'mt-2',
    button: 'dark:focus-visible:ring-offset-neutral-900',
  },
  panel: { overlay: 'z-40', content: 'space-y-4 rounded-md shadow-lg dark:bg-neutral-950', title: 'text-lg', description: '', button: '' },
} as const;

const WIDTHS = { md: 'w-[min(28rem,calc(100vw-2rem))]', lg: 'w-[min(32rem,calc(100vw-2rem))]' } as const;

const ALERT = { ...AlertDialog, Close: AlertDialog.Cancel };

/** The frame every dialog shares: overlay, centred panel, title, description, Cancel and the dialog's own button. */
export function DialogFrame(props: Props) {
  const { open, onOpenChange, trigger, title, description, look = 'compact', width = 'md' } = props;
  const parts = 'action' in props ? ALERT : Dialog;
  const style = LOOKS[look];
  const buttons = (
    <div className={cn('flex justify-end gap-2', look === 'compact' && !('onSubmit' in props) && 'mt-5')}>
      <parts.Close asChild>
        <Button variant="secondary" className={style.button}>
          Cancel
        </Button>
      </parts.Close>
      {'action' in props ? (
        <AlertDialog.Action asChild>
          <Button variant={props.action.variant} onClick={props.action.onClick} className={style.button}>
            {props.action.label}
          </Button>
        </AlertDialog.Action>
      ) : (
        <Button type="submit" disabled={props.submit.disabled} className={style.button}>
          {props.submit.label}
        </Button>
      )}
    </div>
  );
  return (
    <parts.Root open={open} onOpenChange={onOpenChange}>
      {trigger ? <parts.Trigger asChild>{trigger}</parts.Trigger> : null}
      <parts.Portal>
        <parts.Overlay className={cn('fixed inset-0 bg-black/40', style.overlay)} />
        <parts.Content
          className={cn(
            'fixed left-1/2 top-1/2 z-50 -translate-x-1/2 -translate-y-1/2 border border-neutral-200 bg-white p-5 dark:border-neutral-800',
            WIDTHS[width],
            style.content,
          )}
        >
          <parts.Title className={cn('font-semibold', style.title)}>{title}</parts.Title>
          <parts.Description className={cn('text-sm text-neutral-600 dark:text-neutral-400', style.description)}>{description}</parts.Description>
          {'onSubmit' in props ? (
            <form onSubmit={props.onSubmit} className={cn('space-y-4', look === 'compact' && 'mt-4')}>
              {props.children}
              {buttons}
            </form>
          ) : (
            buttons
          )}
        </parts.Content>
      </parts.Portal>
    </parts.Root>
  );
}
