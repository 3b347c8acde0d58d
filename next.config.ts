import type { NextConfig } from 'next';
import { securityHeaderRules } from './server/http/security-headers';

const nextConfig: NextConfig = {
  // isomorphic-git and node built-ins stay on the server, unbundled.
  serverExternalPackages: ['isomorphic-git', 'pg'],
  async headers() {
    return securityHeaderRules();
  },
  // `npm test` type-checks with tsc first; the build need not do it a second time.
  typescript: { ignoreBuildErrors: true },
  // lib/ is plain ESM TypeScript importing './x.js' for './x.ts' (so it also runs under Node and
  // tsx). Turbopack cannot map that yet, so we build with webpack and alias the extension.
  webpack(config: { resolve: { extensionAlias?: Record<string, string[]> } }) {
    config.resolve.extensionAlias = { '.js': ['.ts', '.tsx', '.js'] };
    return config;
  },
};

export default nextConfig;
