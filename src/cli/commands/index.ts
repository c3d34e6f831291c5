import type { Command } from '../command.js';
import { checkCommand } from './check.js';
import { stlCommand } from './stl.js';
import { repairCommand } from './repair.js';
import { scoreCommand } from './score.js';
import { rosNodeCommand } from './ros-node.js';
import { calibrateCommand } from './calibrate.js';
import { replayCommand } from './replay.js';
import { demoCommand } from './demo.js';
import { reportCommand } from './report.js';
import { runCommand } from './run.js';
import { labelCommand } from './label.js';
import { mqttAclCommand } from './mqtt-acl.js';
import { accessCommand } from './access.js';
import '../checkers-so101.js';
import '../replay-rosbag2.js';

/** Every subcommand, in the order `--help` lists them. Later issues add theirs here. */
export const commands: Command[] = [checkCommand, repairCommand, stlCommand, scoreCommand, reportCommand, labelCommand, calibrateCommand, replayCommand, demoCommand, rosNodeCommand, runCommand, accessCommand, mqttAclCommand];
