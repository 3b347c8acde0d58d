import { describe, expect, it } from 'vitest';
import { collectUnits } from './install-units.js';

const input = { node: '/opt/node 22/bin/node', cli: '/home/ann/em/cli/bin.mjs', server: 'https://memory.example.com', machine: "ann's 100% laptop", paths: ['/data/$logs'], home: '/home/ann' };

describe('the units collect --install prints', () => {
  it('run the resolved node and CLI with the server and name, the token read from the env file and never written', () => {
    const units = collectUnits(input);
    expect(units.envFile).toBe('/home/ann/.config/entity-memory/collect.env');
    expect(units.systemd).toContain('EnvironmentFile=/home/ann/.config/entity-memory/collect.env');
    // systemd would expand % and $: doubled; words with spaces quoted
    expect(units.systemd).toContain(`ExecStart="/opt/node 22/bin/node" /home/ann/em/cli/bin.mjs collect --server https://memory.example.com --name "ann's 100%% laptop" "/data/$$logs"`);
    expect(units.systemd).not.toMatch(/--token/);
    expect(units.launchd).toContain(`set -a &amp;&amp; . /home/ann/.config/entity-memory/collect.env &amp;&amp; set +a &amp;&amp; exec '/opt/node 22/bin/node' /home/ann/em/cli/bin.mjs collect --server https://memory.example.com --name 'ann'\\''s 100% laptop' '/data/$logs'`);
    expect(units.launchd).not.toMatch(/--token/);
    expect(units.systemdPath).toBe('/home/ann/.config/systemd/user/entity-memory-collect.service');
    expect(units.launchdPath).toBe('/home/ann/Library/LaunchAgents/com.entity-memory.collect.plist');
  });
});
