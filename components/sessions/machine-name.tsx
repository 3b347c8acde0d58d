import { Laptop } from 'lucide-react';

/**
 * The machine `entity-memory collect` brought a session from (DESIGN §17), said small beside the
 * agent: "on laptop-2". Nothing for a session that came in any other way.
 */
export function MachineName({ machine, withIcon = false, className }: { machine: string | null; withIcon?: boolean; className?: string }) {
  if (!machine) return null;
  return (
    <span data-machine={machine} title={`Collected from the machine ${machine}`} className={className}>
      {withIcon ? <Laptop aria-hidden size={14} className="mr-1 inline-block align-[-2px]" /> : null}
      {withIcon ? `On ${machine}` : ` · on ${machine}`}
    </span>
  );
}
