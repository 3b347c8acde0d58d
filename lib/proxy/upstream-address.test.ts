import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { internalAllowed, isInternalAddress, publicOnlyLookup, refuseInternalUpstream } from './upstream-address';

describe('upstream addresses (SSRF)', () => {
  it('knows loopback, private, link-local, metadata, shared, multicast and mapped addresses from public ones', () => {
    for (const internal of ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:169.254.169.254', '64:ff9b::10.0.0.1', 'not an address']) {
      expect(isInternalAddress(internal), internal).toBe(true);
    }
    for (const external of ['1.1.1.1', '8.8.8.8', '172.32.0.1', '160.79.104.10', '2606:4700::1111', '2a00:1450:4001::1', '::ffff:8.8.8.8']) {
      expect(isInternalAddress(external), external).toBe(false);
    }
  });

  it('judges an IPv6 address by its bytes, so no spelling of an IPv4-compatible, mapped, translated or NAT64 form slips past', () => {
    for (const internal of ['::127.0.0.1', '::7f00:1', '::a9fe:a9fe', '0:0:0:0:0:ffff:7f00:1', '0:0:0:0:0:0:0:1', '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '64:ff9b::7f00:1', '64:ff9b:0:0:0:0:a9fe:a9fe', '::FFFF:127.0.0.1', 'fe80::1%eth0']) {
      expect(isInternalAddress(internal), internal).toBe(true);
    }
    for (const external of ['::ffff:0808:0808', '0:0:0:0:0:ffff:808:808', '::ffff:0:8.8.8.8', '64:ff9b::808:808', '2001:4860:4860::8888']) {
      expect(isInternalAddress(external), external).toBe(false);
    }
  });

  it('refuses a URL whose host is internal or resolves (even once among many) to an internal address; passes a public one', async () => {
    const resolve = async (host: string) => ({ 'api.example.com': ['160.79.104.10'], 'mixed.example.com': ['160.79.104.10', '10.0.0.5'], 'rebind.example.com': ['127.0.0.1'] })[host] ?? Promise.reject(Object.assign(new Error('nope'), { code: 'ENOTFOUND' }));
    const env = {};
    expect(await refuseInternalUpstream('https://api.example.com/v1', { env, resolve })).toBeNull();
    expect(await refuseInternalUpstream('http://127.0.0.1:11434/v1', { env, resolve })).toMatch(/127\.0\.0\.1 is a loopback, private or link-local address.*OPENPROGRAM_PROXY_ALLOW_PRIVATE=1/);
    expect(await refuseInternalUpstream('http://[::1]:8080', { env, resolve })).toMatch(/^::1 is a loopback/);
    expect(await refuseInternalUpstream('http://169.254.169.254/latest', { env, resolve })).toMatch(/link-local/);
    expect(await refuseInternalUpstream('https://mixed.example.com', { env, resolve })).toMatch(/mixed\.example\.com is at 10\.0\.0\.5/);
    expect(await refuseInternalUpstream('https://rebind.example.com', { env, resolve })).toMatch(/at 127\.0\.0\.1/);
    expect(await refuseInternalUpstream('https://nowhere.example.com', { env, resolve })).toMatch(/does not resolve \(ENOTFOUND\)/);
  });

  it('lets the admin allow internal upstreams, and always allows the instance’s own default URLs', async () => {
    expect(await refuseInternalUpstream('http://127.0.0.1:9/v1', { env: { OPENPROGRAM_PROXY_ALLOW_PRIVATE: '1' } })).toBeNull();
    const env = { OPENPROGRAM_PROXY_OPENAI_URL: 'http://127.0.0.1:3250/v1/', OPENPROGRAM_PROXY_ANTHROPIC_URL: 'http://127.0.0.1:3250' };
    expect(internalAllowed('http://127.0.0.1:3250/v1', env)).toBe(true);
    expect(internalAllowed('http://127.0.0.1:3250', env)).toBe(true);
    expect(internalAllowed('http://127.0.0.1:32501', env)).toBe(false);
    expect(internalAllowed('http://127.0.0.1:3251/v1', env)).toBe(false);
    expect(await refuseInternalUpstream('http://127.0.0.1:3251/v1', { env })).not.toBeNull();
  });

  it('refuses at connect time: a request through the guarded lookup to a name of loopback fails before connecting', async () => {
    let reached = false;
    const server = http.createServer((_req, res) => {
      reached = true;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const error = await new Promise<NodeJS.ErrnoException>((resolve) => {
      const request = http.request({ host: 'localhost', port, lookup: publicOnlyLookup }, () => resolve(new Error('connected') as NodeJS.ErrnoException));
      request.on('error', resolve);
      request.end();
    });
    server.close();
    expect(error.code).toBe('EINTERNALADDRESS');
    expect(error.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), an internal address/);
    expect(reached).toBe(false);
  });
});
