'use client';

import * as ContextMenu from '@radix-ui/react-context-menu';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { Check, ChevronRight, CircleDot, Tags } from 'lucide-react';
import type { SessionRow } from '@/components/sessions/session-types';
import { STATE_CHOICES } from './tag-look';
import { useOrganiseActions } from './use-organise-actions';

/**
 * The row menu's "Tags…" and "Set state" (DESIGN §16), for the "⋯" menu and the right-click one
 * alike; `className`s are the menu's own so the items look like their neighbours.
 */
export function OrganiseMenuItems({ row, kind, item, content, onTags }: { row: SessionRow; kind: 'button' | 'context'; item: string; content: string; onTags(): void }) {
  const actions = useOrganiseActions();
  const Menu = kind === 'button' ? DropdownMenu : ContextMenu;
  return (
    <>
      <Menu.Item className={item} onSelect={onTags}>
        <Tags size={16} aria-hidden /> Tags…
      </Menu.Item>
      <Menu.Sub>
        <Menu.SubTrigger className={item}>
          <CircleDot size={16} aria-hidden /> Set state
          <ChevronRight size={14} aria-hidden className="ml-auto" />
        </Menu.SubTrigger>
        <Menu.Portal>
          <Menu.SubContent className={content}>
            <Menu.RadioGroup value={row.state ?? 'none'} onValueChange={(value) => void actions.setState(row, value === 'none' ? null : (value as typeof row.state))}>
              {STATE_CHOICES.map(({ value, label }) => (
                <Menu.RadioItem key={label} value={value ?? 'none'} className={`${item} pl-7 relative`}>
                  <Menu.ItemIndicator className="absolute left-2">
                    <Check size={14} aria-hidden />
                  </Menu.ItemIndicator>
                  {label}
                </Menu.RadioItem>
              ))}
            </Menu.RadioGroup>
          </Menu.SubContent>
        </Menu.Portal>
      </Menu.Sub>
    </>
  );
}
