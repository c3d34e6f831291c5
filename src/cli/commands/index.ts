import type { CommandEntry } from '../command.js';

/**
 * Every subcommand, in the order `--help` lists them: name, one-line summary, and a loader that
 * imports the command's module only when that command runs (start-up loads this table and nothing
 * else). To add a command: export a `Command` from commands/<name>.ts and add one line here.
 */
export const commands: readonly CommandEntry[] = [
  {
    name: 'check',
    summary: 'validate spec, clause-library and calibration files',
    load: async () => (await import('./check.js')).checkCommand,
  },
  {
    name: 'repair',
    summary: 'rewrite an unfinished or damaged MCAP episode/bag as a complete, indexed file',
    load: async () => (await import('./repair.js')).repairCommand,
  },
  {
    name: 'stl',
    summary: 'evaluate STL formulas on a CSV trace (robustness, series, online statistics)',
    load: async () => (await import('./stl.js')).stlCommand,
  },
  {
    name: 'score',
    summary: 'score recorded episode traces post hoc: per-clause ρ, VSI, SR/Safety/SBU/P[U|S] with intervals',
    load: async () => (await import('./score.js')).scoreCommand,
  },
  {
    name: 'report',
    summary:
      'safety report over a directory of episodes: HTML (with trace plots), Markdown, episodes.csv, summary.json',
    load: async () => (await import('./report.js')).reportCommand,
  },
  {
    name: 'label',
    summary: 'append a label (success/failure, task, manual clause verdicts, note) to a finished episode file',
    load: async () => (await import('./label.js')).labelCommand,
  },
  {
    name: 'calibrate',
    summary: 'calibrate an SO-101 (free-motion model, torque constants, table height)',
    load: async () => (await import('./calibrate.js')).calibrateCommand,
  },
  {
    name: 'replay',
    summary: 'replay recorded data (Franka rosbag2 files, LeRobot SO-101 datasets) through the mapping and the clauses',
    load: async () => (await import('./replay.js')).replayCommand,
  },
  {
    name: 'demo',
    summary: 'pilot in the MuJoCo testbed: scripted policies gate off then gate on, recorded, labelled, reported',
    load: async () => (await import('./demo.js')).demoCommand,
  },
  {
    name: 'ros-node',
    summary: 'run the armguard ROS 2 monitor node for a Franka (rclnodejs)',
    load: async () => (await import('./ros-node.js')).rosNodeCommand,
  },
  {
    name: 'run',
    summary: 'monitor and gate a live arm (SO-101 on its serial bus, or the emulator)',
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    name: 'access',
    summary: 'write the access file (MQTT users, roles, scrypt password hashes; mode 0600)',
    load: async () => (await import('./access.js')).accessCommand,
  },
  {
    name: 'mqtt-acl',
    summary: "write the Mosquitto ACL equivalent to an access file's users and roles (for an external broker)",
    load: async () => (await import('./mqtt-acl.js')).mqttAclCommand,
  },
  {
    name: 'mocap-fit',
    summary: 'fit the mocap (tracking) frame in the robot base frame from touched point pairs, with residuals',
    load: async () => (await import('./mocap-fit.js')).mocapFitCommand,
  },
  {
    name: 'doctor',
    summary:
      'check what a first run needs (serial port, servos, supply, calibration; ROS 2, topics, clock) and print the fixes',
    load: async () => (await import('./doctor.js')).doctorCommand,
  },
];
