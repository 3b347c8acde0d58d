import { one, usageError, type CommandSpec } from '../command-spec.js';
import { parseScopeFlag } from '../token-scope-flags.js';

/** Accounts and API tokens. */
export const USER_COMMANDS: Record<string, CommandSpec> = {
  'users add': {
    usage: 'users add <email> --password <pw> [--admin]',
    summary: 'create a user',
    async run(backend, args, values, output) {
      const email = one(args, 'email', this);
      if (!values.password) throw usageError('users add needs --password', this);
      const user = await backend.addUser({ email, password: values.password, admin: values.admin === true });
      output.out(values.json ? JSON.stringify(user) : `Created ${user.admin ? 'admin' : 'user'} ${user.email} (${user.id})`);
    },
  },
  'users list': {
    usage: 'users list',
    summary: 'list users',
    async run(backend, _args, values, output) {
      const users = await backend.listUsers();
      if (values.json) output.out(JSON.stringify(users));
      else for (const user of users) output.out([user.id, user.email, user.admin ? 'admin' : 'user', user.disabled ? 'disabled' : 'active'].join('\t'));
    },
  },
  'users disable': {
    usage: 'users disable <email|id>',
    summary: 'disable a user (ends their sign-ins)',
    async run(backend, args, _values, output) {
      const user = await backend.setUserDisabled(one(args, 'email or id', this), true);
      output.out(`Disabled user ${user.email}`);
    },
  },
  'users enable': {
    usage: 'users enable <email|id>',
    summary: 'enable a user again',
    async run(backend, args, _values, output) {
      const user = await backend.setUserDisabled(one(args, 'email or id', this), false);
      output.out(`Enabled user ${user.email}`);
    },
  },
  'users reset-password': {
    usage: 'users reset-password <email|id> --password <pw>',
    summary: 'set a new password (ends their sign-ins)',
    async run(backend, args, values, output) {
      const who = one(args, 'email or id', this);
      if (!values.password) throw usageError('users reset-password needs --password', this);
      const user = await backend.resetPassword(who, values.password);
      output.out(values.json ? JSON.stringify(user) : `Reset the password of ${user.email}; their sign-ins have ended`);
    },
  },
  'tokens create': {
    usage: 'tokens create <name> [--expires <date>] [--scope read,write,proxy,import,mcp] [--project <id>]',
    summary: 'create an API token (shown once); without --scope it has every scope',
    async run(backend, args, values, output) {
      const name = one(args, 'token name', this);
      let expiresAt: number | null = null;
      if (values.expires) {
        expiresAt = Date.parse(values.expires);
        if (Number.isNaN(expiresAt)) throw usageError(`--expires: not a date: ${values.expires}`, this);
      }
      const scopes = parseScopeFlag(values.scope, this);
      const token = await backend.createToken({ name, expiresAt, scopes, projectId: values.project ?? null });
      output.out(values.json ? JSON.stringify(token) : token.token);
    },
  },
};
