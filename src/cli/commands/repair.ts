import { EXIT, parseArgs, type Command } from '../command.js';
import { appendIndexEntry, indexEpisodeFile, indexKey } from '../../episode/episode-index.js';
import { describeRepair, repairLoss, repairLostData, repairMcapFile } from '../../episode/repair.js';

export const repairCommand: Command = {
  name: 'repair',
  help: `usage: armguard repair <file.mcap> [--out <path>] [--ros-only] [--index <episodes.jsonl>]

Reads every whole record of <file.mcap> (a recording whose process was killed, or a file with a
damaged tail) and writes a complete, indexed MCAP file with the same schemas, channels, messages
(identical payloads, times and sequence numbers), metadata and attachments. A damaged chunk (bad
CRC, broken framing) is skipped and the records after it are kept. Bytes after the last whole
record cannot be recovered. When anything was lost the command says how much and exits 1.
It never overwrites a file: --out must be a new path (not the input under any name).

options:
  --out <path>      write the repaired file to this new path (refused if it exists; default:
                    replace <file.mcap>, keeping the original as <file.mcap>.bak)
  --ros-only        keep only the ROS 2 (ros2msg/cdr) topics and the rosbag2 metadata: a plain
                    rosbag2 file that 'ros2 bag play' accepts (it refuses mixed JSON/CDR files)
  --index <file>    append the repaired episode's line to this episode index

examples:
  armguard repair episodes/2026-11-29/ep-0042.mcap
  armguard repair ep-0042.mcap --out ep-0042-fixed.mcap --index episodes/episodes.jsonl
  armguard repair ep-0042.mcap --out ep-0042-ros.mcap --ros-only && ros2 bag play ep-0042-ros.mcap`,
  async run(args, io) {
    const parsed = parseArgs(args, { strings: ['out', 'index'], booleans: ['ros-only'] });
    if (!parsed.ok) {
      io.err(`armguard repair: ${parsed.error}`);
      return EXIT.usage;
    }
    const [file, ...extra] = parsed.positionals;
    if (file === undefined || extra.length > 0) {
      io.err('armguard repair: give exactly one file (usage: armguard repair <file.mcap> [--out <path>])');
      return EXIT.usage;
    }
    const out = parsed.options.get('out');
    const report = await repairMcapFile(file, typeof out === 'string' ? out : undefined, {
      rosOnly: parsed.options.get('ros-only') === true,
    });
    io.out(describeRepair(report));
    const index = parsed.options.get('index');
    if (typeof index === 'string') {
      const entry = await indexEpisodeFile(report.output, indexKey(index, report.output));
      await appendIndexEntry(index, entry);
      io.out(`${index}: indexed ${entry.episodeId}`);
    }
    if (repairLostData(report)) {
      const loss = repairLoss(report);
      io.err(
        `armguard repair: data lost: ${loss.unknown ? (loss.messages > 0 ? `at least ${loss.messages}` : 'an unknown number of') : loss.messages} message(s) could not be recovered (kept ${report.messages})`,
      );
      return EXIT.failure;
    }
    return EXIT.ok;
  },
};
