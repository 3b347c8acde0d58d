import { handleMcpRequest } from '@/server/mcp/http';

// `npm start` answers /mcp from server/http/serve.ts; this is the same under `next dev` / `next start`.
export const dynamic = 'force-dynamic';
export const GET = handleMcpRequest;
export const POST = handleMcpRequest;
export const DELETE = handleMcpRequest;
