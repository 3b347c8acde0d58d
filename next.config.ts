import type { NextConfig } from 'next';

const nextConfig: NextConfig = {
  // isomorphic-git and node built-ins stay on the server, unbundled.
  serverExternalPackages: ['isomorphic-git'],
};

export default nextConfig;
