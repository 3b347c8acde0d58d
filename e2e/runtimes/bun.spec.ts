import { runtimeSmoke } from './smoke';

// `npm run start:bun`: the built app served by Bun, on E2E_PORT + 20.
runtimeSmoke('bun', 20);
