import { runtimeSmoke } from './smoke';

// `npm run start:deno`: the built app served by Deno, on E2E_PORT + 21.
runtimeSmoke('deno', 21);
