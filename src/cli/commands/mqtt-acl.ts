import { readFile, writeFile } from 'node:fs/promises';
import { EXIT, parseArgs, type Command } from '../command.js';
import { parseAccessFile } from '../compose/access-file.js';
import { mosquittoAcl } from '../../telemetry/access.js';

export const mqttAclCommand: Command = {
  name: 'mqtt-acl',
  help: `usage: armguard mqtt-acl --access <access.yaml> [--out <acl-file>]

The embedded broker of \`armguard run\` enforces the roles of the access file itself. With an external
broker (Mosquitto, MQTT 5) the broker must enforce them: this writes the equivalent ACL (to stdout,
or to --out). Use it with a password_file made by mosquitto_passwd for the same users, and
allow_anonymous false (see hardware.md "MQTT security").

options:
  --access <yaml>   users and roles (the file armguard run --access takes)
  --out <file>      write the ACL here instead of stdout

example:
  armguard mqtt-acl --access access.yaml --out /etc/mosquitto/armguard.acl`,
  async run(args, io) {
    const parsed = parseArgs(args, { strings: ['access', 'out'] });
    if (!parsed.ok) {
      io.err(`armguard mqtt-acl: ${parsed.error}`);
      return EXIT.usage;
    }
    const accessPath = parsed.options.get('access');
    const out = parsed.options.get('out');
    if (typeof accessPath !== 'string' || parsed.positionals.length > 0) {
      io.err('armguard mqtt-acl: give --access <access.yaml> (and no other arguments)');
      return EXIT.usage;
    }
    let text: string;
    try {
      text = await readFile(accessPath, 'utf8');
    } catch (e) {
      io.err(`armguard mqtt-acl: ${accessPath}: cannot read: ${(e as Error).message}`);
      return EXIT.failure;
    }
    const access = parseAccessFile(text, accessPath);
    if (!access.ok) {
      for (const p of access.problems) io.err(`armguard mqtt-acl: ${p.message}`);
      return EXIT.failure;
    }
    const acl = mosquittoAcl(access.value);
    if (typeof out === 'string') {
      try {
        await writeFile(out, acl);
      } catch (e) {
        io.err(`armguard mqtt-acl: ${out}: cannot write: ${(e as Error).message}`);
        return EXIT.failure;
      }
      io.out(`wrote ${out} (${access.value.users.length} user(s))`);
    } else {
      io.out(acl);
    }
    return EXIT.ok;
  },
};
