import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY, TRPCDefaultErrorShape } from '@trpc/server';
import { DISK_FULL_MESSAGE, isDiskFull } from '@/lib/fs/disk-full';

/**
 * The one place where errors typed in lib/ (StoreError, AuthError: `.code` is a tRPC code name)
 * become tRPC errors, and where validation errors get a readable message.
 */
const DOMAIN_CODES = new Set<TRPC_ERROR_CODE_KEY>([
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'PRECONDITION_FAILED',
  'TOO_MANY_REQUESTS',
  'PAYLOAD_TOO_LARGE',
]);

// Matched by shape, not instanceof (Next may load lib/ twice, giving two StoreError classes) nor
// by class name (minified in the build). Node's own error codes (ENOENT, ERR_…) never collide.
function domainCode(error: unknown): TRPC_ERROR_CODE_KEY | null {
  if (!(error instanceof Error) || error instanceof TRPCError) return null;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && DOMAIN_CODES.has(code as TRPC_ERROR_CODE_KEY) ? (code as TRPC_ERROR_CODE_KEY) : null;
}

/**
 * A thrown StoreError/AuthError as the tRPC error of the same code and message; the model server
 * failing (lib/llm's ModelError, by name for the same reason) as BAD_GATEWAY; a full disk as
 * SERVICE_UNAVAILABLE (503: tRPC has no 507) that says so; null for others.
 */
export function toTRPCError(error: unknown): TRPCError | null {
  const cause = error instanceof TRPCError && error.cause ? error.cause : error;
  const code = domainCode(cause);
  if (code) return new TRPCError({ code, message: (cause as Error).message, cause: cause as Error });
  if (isDiskFull(cause)) return new TRPCError({ code: 'SERVICE_UNAVAILABLE', message: DISK_FULL_MESSAGE, cause: cause instanceof Error ? cause : undefined });
  if (cause instanceof Error && cause.name === 'ModelError') {
    return new TRPCError({ code: 'BAD_GATEWAY', message: `the model failed: ${cause.message}`, cause });
  }
  return null;
}

/** The body of the domain-error middleware: a failed call's StoreError/AuthError leaves as its tRPC error. */
export async function mapDomainErrors<R extends { ok: boolean; error?: unknown }>({ next }: { next: () => Promise<R> }): Promise<R> {
  const result = await next();
  if (!result.ok) {
    const mapped = toTRPCError(result.error);
    if (mapped) throw mapped;
  }
  return result;
}

// zod issues, or Standard Schema issues whose path segments may be `{ key }` objects.
interface IssueLike {
  path?: ReadonlyArray<PropertyKey | { key: PropertyKey }>;
  message: string;
}

function zodIssues(error: unknown): IssueLike[] | null {
  const issues = (error as { issues?: unknown } | undefined)?.issues;
  return Array.isArray(issues) && issues.length > 0 && issues.every((i) => typeof i?.message === 'string') ? issues : null;
}

/** `email: Invalid email address; password: Too small: expected string to have >=8 characters` */
export function describeIssues(issues: IssueLike[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      const path = (issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)).join('.');
      return `${path || 'input'}: ${issue.message}`;
    })
    .join('; ');
}

/** A moved user's refusal (server/cluster/misdirected.ts's MisdirectedError), by shape for the reason above. */
function misdirectedOwner(cause: unknown): unknown {
  return cause instanceof Error && cause.name === 'MisdirectedError' ? (cause as { owner?: unknown }).owner : undefined;
}

export function errorFormatter({ shape, error }: { shape: TRPCDefaultErrorShape; error: TRPCError }): TRPCDefaultErrorShape {
  const owner = misdirectedOwner(error.cause);
  if (owner) {
    // The one 421's data (code, httpStatus, owner) inside tRPC's envelope: clients read the owner as from any other path.
    return { ...shape, data: { ...shape.data, code: 'MISDIRECTED_REQUEST' as TRPCDefaultErrorShape['data']['code'], httpStatus: 421, owner } as TRPCDefaultErrorShape['data'] };
  }
  const issues = error.code === 'BAD_REQUEST' ? zodIssues(error.cause) : null;
  if (issues) return { ...shape, message: describeIssues(issues) };
  if (error.code === 'INTERNAL_SERVER_ERROR') {
    // Never leak paths or internals; the server log has the details (onError in the route).
    return { ...shape, message: 'internal server error', data: { ...shape.data, stack: undefined } };
  }
  return shape;
}
