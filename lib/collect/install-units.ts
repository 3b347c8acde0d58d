import { join } from 'node:path';

/**
 * `entity-memory collect --install` (DESIGN §17): a systemd user unit and a launchd agent that
 * run the collector at log-in and again when it stops. The token is never written into them: they
 * read it from an env file only its owner may read (`ENTITY_MEMORY_COLLECT_TOKEN=…`).
 */

/** The variable the collector reads its token from when `--token` is not given. */
export const TOKEN_VARIABLE = 'ENTITY_MEMORY_COLLECT_TOKEN';
export const UNIT_NAME = 'entity-memory-collect';
export const LAUNCHD_LABEL = 'com.entity-memory.collect';

export interface UnitInput {
  /** absolute paths: the node binary and the CLI it runs */
  node: string;
  cli: string;
  server: string;
  machine: string;
  /** extra paths to watch (absolute) */
  paths: string[];
  home: string;
}

export interface CollectUnits {
  envFile: string;
  systemdPath: string;
  systemd: string;
  launchdPath: string;
  launchd: string;
}

function collectArgs(input: UnitInput): string[] {
  return [input.node, input.cli, 'collect', '--server', input.server, '--name', input.machine, ...input.paths];
}

/** One ExecStart word: quoted when it must be, `%` and `$` doubled (systemd would expand them). */
function systemdWord(word: string): string {
  const escaped = word.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  return /^[A-Za-z0-9_@+=:,./-]+$/.test(escaped) ? escaped : `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function shellWord(word: string): string {
  return /^[A-Za-z0-9_@+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function collectUnits(input: UnitInput): CollectUnits {
  const envFile = join(input.home, '.config', 'entity-memory', 'collect.env');
  const systemd = [
    '[Unit]',
    `Description=Entity Memory collector: this machine's agent transcripts to ${input.server}`,
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `EnvironmentFile=${envFile.replace(/%/g, '%%')}`,
    `ExecStart=${collectArgs(input).map(systemdWord).join(' ')}`,
    'Restart=always',
    'RestartSec=5',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
  // launchd has no env files: a shell reads it, then becomes the collector.
  const script = `set -a && . ${shellWord(envFile)} && set +a && exec ${collectArgs(input).map(shellWord).join(' ')}`;
  const log = join(input.home, 'Library', 'Logs', `${UNIT_NAME}.log`);
  const launchd = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key><string>${LAUNCHD_LABEL}</string>`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    '    <string>/bin/sh</string>',
    '    <string>-c</string>',
    `    <string>${xml(script)}</string>`,
    '  </array>',
    '  <key>RunAtLoad</key><true/>',
    '  <key>KeepAlive</key><true/>',
    '  <key>ThrottleInterval</key><integer>5</integer>',
    `  <key>StandardOutPath</key><string>${xml(log)}</string>`,
    `  <key>StandardErrorPath</key><string>${xml(log)}</string>`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
  return {
    envFile,
    systemdPath: join(input.home, '.config', 'systemd', 'user', `${UNIT_NAME}.service`),
    systemd,
    launchdPath: join(input.home, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`),
    launchd,
  };
}
