/**
 * `armguard run so101`: the live composition root a pilot team runs beside the arm. Parses and
 * validates the options, then runs a RunSession (src/cli/compose/session.ts) until the operator
 * quits, --duration elapses or SIGINT/SIGTERM arrives; every way out holds the arm first and
 * closes the episode file. Real clock and timers are used only here.
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { userOrPackagePath } from '../../platform/package-files.js';
import { parseSo101Calibration, type So101Calibration } from '../../calibration/so101.js';
import { systemClock, systemTimers } from '../../platform/system-clock.js';
import type { AccessConfig } from '../../telemetry/access.js';
import { isValidRobotId } from '../../telemetry/topics.js';
import { EXIT, parseArgs, type CliIo, type Command } from '../command.js';
import { SPEC_FILE_HELP, SPEC_FILE_OPTIONS, loadScoringSpec, specPathsFrom } from '../spec-files.js';
import { readAccessFile } from '../compose/access-file.js';
import { YamlReader } from '../../schema/yaml-reader.js';
import { stat } from 'node:fs/promises';
import { OPERATOR_KEYS_HELP, attachOperatorKeys } from '../compose/operator-keys.js';
import { RunSession, type RunSessionOptions } from '../compose/session.js';
import type { BrokerChoice } from '../../telemetry/run-telemetry.js';
import { chunkRateLimit } from '../../telemetry/chunk-admission.js';
import { realtimeMainThread } from '../../platform/thread-priority.js';
import { so101FreeMotion, type So101FreeMotion } from '../../../drivers/so101/onnx-residual.js';
import {
  SEMANTIC_BOOLEANS,
  SEMANTIC_RUN_HELP,
  SEMANTIC_STRINGS,
  parseSemanticRunOptions,
} from '../compose/semantic-options.js';

const STRINGS = [
  'port',
  'calibration',
  'task',
  'robot-id',
  'episodes-dir',
  'rate',
  'mqtt',
  'mqtt-credentials',
  'access',
  'broker-port',
  'dashboard',
  'gate',
  'duration',
  'workspace',
  'obstacles',
  'max-age',
  'max-age-ceiling',
  'dead-man',
  'on-link-loss',
  'watchdog',
  'bus-timeout',
  'arm-watchdog',
  'emulator-delay',
  'warning-band',
  'warning-band-run-on',
  'chunk-filter',
  'self-clearance',
  'held-tilt',
  'planning-margin',
  'tracking',
  'obstacle-bodies',
  'bystanders',
  'tracking-frame-in-base',
  'obstacle-max-age',
  'max-chunk-rate',
  'control-fifo',
  ...SEMANTIC_STRINGS,
  ...SPEC_FILE_OPTIONS,
] as const;
const BOOLEANS = ['emulator', ...SEMANTIC_BOOLEANS] as const;

const HELP = `usage: armguard run so101 (--port <tty> | --emulator) --calibration <file> --task <task-id> [options]

Monitors and gates a live SO-101: connects the arm without moving it, scores every control step
against the clauses that apply to the task (signals declared by the calibration file), holds the
arm on a violation, fault, stale signal or e-stop, filters policy chunks (screen → CBF on the arm
capsules vs the table plane / workspace box / fixed spheres → warning band → arm), records one MCAP episode per episode, and
publishes telemetry on MQTT. Policies send chunks to armguard/v1/<robot>/chunk/request.

  --port <tty>          the arm's serial port (e.g. /dev/ttyACM0)
  --emulator            emulated STS3215 servos + simulated arm behind a real socat pty pair
  --emulator-delay <s>  with --emulator: delay every servo reply by this much (a slow adapter or a
                        loaded host; the measured read cycle and the derived max ages follow it)
  --calibration <yaml>  SO-101 calibration (armguard calibrate so101; e.g. calibration/so101-demo.yaml)
  --task <id>           task from the task map (decides which clauses apply)
${SPEC_FILE_HELP}
  --robot-id <id>       robot id in MQTT topics and episode ids (default: so101)
  --episodes-dir <dir>  where episode files go (default: episodes)
  --rate <hz>           control steps per second (default 100)
  --mqtt <url>          external broker (mqtt://host:1883 or mqtts://…); default: embedded broker.
                        Credentials never on the command line (the process list shows it): set
                        ARMGUARD_MQTT_USERNAME / ARMGUARD_MQTT_PASSWORD, or give --mqtt-credentials
  --mqtt-credentials <yaml>  file with 'username:' and 'password:' for --mqtt (mode 0600)
  --access <yaml>       users and roles for the embedded broker ('armguard access init|add-user'
                        writes it; see hardware.md "Running a pilot")
  --broker-port <n>     embedded broker port on 127.0.0.1 (default 1883; 0 = any free port)
  --dashboard <port>    serve the live dashboard on 127.0.0.1:<port>
  --gate on|off         off = a baseline run: the policy's chunks go to the arm unfiltered (still
                        refused when malformed, non-finite, beyond joint limits, stale or out of
                        order); clauses are monitored and recorded, would-holds recorded but not
                        commanded; e-stop, watchdog and bus faults still hold (default on)
  --workspace x0,y0,z0,x1,y1,z1   box (m, base frame) the arm capsules must stay inside
  --obstacles "x,y,z,r;…"         fixed spheres (m, base frame: centre and radius) the arm keeps clear of
  --tracking udp:[<host>:]<port>   live tracked obstacles: pose datagrams from a mocap or AprilTag
                        bridge ({"v":1,"bodies":[{"name","p":[x,y,z],"q":[x,y,z,w]}]}, tracking frame,
                        m) on this UDP address (host default 127.0.0.1; hardware.md "Tracked obstacles")
  --obstacle-bodies "body:r,…"    tracked bodies the arm keeps clear of: a sphere of radius r (m)
                        around each tracked position (needs --tracking)
  --bystanders "cup,plate"  tracked bodies that must stay put: their largest displacement from
                        the first pose is non_target_disp_max, so non_target_max_disp is monitored
                        (needs --tracking)
  --tracking-frame-in-base x,y,z,roll,pitch,yaw   the tracking frame in the robot base (m, rad;
                        armguard mocap-fit prints it; default 0,0,0,0,0,0)
  --obstacle-max-age <s>  a tracked body not seen for this long holds the next chunk (default 0.1)
  --warning-band on|off the chunk warning band after the CBF (issue 15; hardware.md "Warning band"):
                        predicts contact force (speed toward the calibration's table plane), joint
                        load (calibrated gravity + what the chunk commands beyond reach) and a held
                        object's height along each chunk and slows, bends or holds it while a
                        predicted margin is inside its clause's ε — before ρ reaches 0 (default on)
  --warning-band-run-on <s>  how far the arm runs on past a stopped target (default 0.12: the
                        follower's lag measured on the real LeRobot SO-101 dataset)
  --chunk-filter worker|inline  where chunks are filtered (CBF and warning band): in a worker thread,
                        each answer re-checked on the control thread against the present joint
                        state and obstacles before it reaches the arm, so no chunk delays a control
                        step (default worker); inline: on the control thread (each chunk delays its
                        step by the filter time)
  --self-clearance <m>|off  keep the arm's links (and the gripper's volumes) this far apart: every
                        link pair not on the description's allowed-collision list is a CBF pair, so a
                        chunk folding the arm into itself is bent or held (default 0.005: the real
                        arm parks 10–12 mm from itself, bench/RESULTS.md); off = no self pair
  --held-tilt on|off    while a chunk starts with the gripper commanded closed (column 5 below half
                        open), the tool may tilt at most held_object_tilt_world's τ − ε from its pose
                        at the grasp (rigid grasp, as the monitored signal assumes); bent by the CBF
                        (default on where the task monitors that clause)
  --planning-margin <m>  plan every barrier pair this much beyond its clearance, refuse only inside
                        the clearance (default 0.003: the tracking error measured at chunk starts in
                        the demo, above the STS3215's step and wrist backlash)
  --max-age <s>         raise every signal's max age (design §2) to at least this (default: derived
                        at start-up from 20 measured state reads: 2 × (control period + slowest
                        read), printed in the 'timing:' line); a derived floor then follows
                        slower reads during the run (2 × (period + slowest of the last 200 reads)),
                        never below its start-up value; --max-age stays fixed
  --max-age-ceiling <s>  the safety bound of that floor: it never rises above this, so a signal
                        that stops holds within it (default 0.25; not with --max-age)
  --watchdog <s>        hold when no fresh sample arrived for this long (default: 2 × the max-age
                        floor, at least 0.1 s)
  --bus-timeout <s>     per-attempt serial reply timeout with --port (default 0.05: a USB adapter's
                        16 ms latency timer twice, plus margin; 2 retries follow a timeout)
  --arm-watchdog <s>    the arm holds itself when no gate heartbeat came for this long (default 0.25)
  --dead-man <s>        operator dead-man: hold while no heartbeat from an operator-role MQTT
                        client (armguard/v1/<robot>/cmd/heartbeat) arrived for <s>, from the start
  --on-link-loss hold|warn   when the MQTT command channel (the remote e-stop) is down: hold the
                        arm until it is back (default) or only record the fault
  --duration <s>        stop by itself after this many seconds
  --max-chunk-rate <Hz>  chunk requests above this rate per policy user (embedded broker; in all
                        with --mqtt) are answered rejected 'rate-limit' without being decoded
                        (default 100, bursts of 0.2 s of it)
  --control-fifo <1-99>  run the control thread at real-time priority (SCHED_FIFO, this priority)
                        once everything has started; the network and filter workers stay at the
                        normal policy. Needs root, CAP_SYS_NICE or an rtprio limit; refused at
                        start-up otherwise (hardware.md "MQTT security": a chunk flood delays
                        control steps by 5–6 ms without it, under 5 ms with it)

${SEMANTIC_RUN_HELP}

${OPERATOR_KEYS_HELP} (when stdin is a terminal)
SIGINT/SIGTERM hold the arm, close the episode file and exit 0.

examples:
  armguard run so101 --emulator --calibration calibration/so101-demo.yaml --task so101-pick-blue-can --access access.yaml
  armguard run so101 --port /dev/ttyACM0 --calibration cal.yaml --task so101-pick-butter --access access.yaml --dashboard 8080`;

type Parsed =
  | {
      ok: true;
      options: Omit<RunSessionOptions, 'clock' | 'timers' | 'log'>;
      notice?: string;
      /** --control-fifo: the control thread's SCHED_FIFO priority, applied once the session runs. */
      controlFifo?: number;
    }
  | { ok: false; code: number; errors: string[] };

function usageError(msg: string): Parsed {
  return { ok: false, code: EXIT.usage, errors: [`armguard run: ${msg}`] };
}

/** Validate the arguments and read the files they name (calibration, access, spec). */
export async function parseRunArgs(args: readonly string[]): Promise<Parsed> {
  const p = parseArgs(args, { strings: STRINGS, booleans: BOOLEANS });
  if (!p.ok) return usageError(p.error);
  const str = (k: (typeof STRINGS)[number]): string | undefined => {
    const v = p.options.get(k);
    return typeof v === 'string' ? v : undefined;
  };
  const [platform, ...extra] = p.positionals;
  if (platform !== 'so101')
    return usageError(
      platform === undefined
        ? "give the platform: 'armguard run so101 …'"
        : `unknown platform '${platform}' (this command drives: so101; Franka runs as 'armguard ros-node')`,
    );
  if (extra.length > 0) return usageError(`unexpected argument '${extra[0]}'`);
  const port = str('port');
  const emulator = p.options.get('emulator') === true;
  if (!port === !emulator) return usageError('give exactly one of --port <tty> or --emulator');
  const calOption = str('calibration');
  if (!calOption) return usageError('--calibration <yaml> is required');
  const calPath = userOrPackagePath(calOption);
  const task = str('task');
  if (!task) return usageError('--task <task-id> is required (see spec/tasks.yaml)');
  const robotId = str('robot-id') ?? 'so101';
  if (!isValidRobotId(robotId)) return usageError(`--robot-id '${robotId}': use letters, digits, '_' or '-'`);
  const num = (
    k: (typeof STRINGS)[number],
    dflt: number | undefined,
    check: (v: number) => boolean,
    expected: string,
  ): number | undefined | string => {
    const raw = str(k);
    if (raw === undefined) return dflt;
    const v = Number(raw);
    return raw.trim() !== '' && check(v) ? v : `--${k}: expected ${expected}, got '${raw}'`;
  };
  const rate = num('rate', 100, (v) => v >= 1 && v <= 1000, 'a rate in Hz between 1 and 1000');
  const brokerPort = num(
    'broker-port',
    1883,
    (v) => Number.isInteger(v) && v >= 0 && v <= 65535,
    'a TCP port 0..65535',
  );
  const dashboardPort = num(
    'dashboard',
    undefined,
    (v) => Number.isInteger(v) && v >= 0 && v <= 65535,
    'a TCP port 0..65535',
  );
  const duration = num('duration', undefined, (v) => v > 0 && Number.isFinite(v), 'a positive number of seconds');
  const maxAge = num('max-age', undefined, (v) => v > 0 && v <= 5, 'seconds in (0, 5]');
  const maxAgeCeiling = num('max-age-ceiling', undefined, (v) => v > 0 && v <= 5, 'seconds in (0, 5]');
  const deadMan = num('dead-man', undefined, (v) => v >= 0.1 && v <= 60, 'seconds in [0.1, 60]');
  const watchdog = num('watchdog', undefined, (v) => v >= 0.01 && v <= 5, 'seconds in [0.01, 5]');
  const busTimeout = num('bus-timeout', undefined, (v) => v >= 0.002 && v <= 1, 'seconds in [0.002, 1]');
  const armWatchdog = num('arm-watchdog', undefined, (v) => v >= 0.05 && v <= 5, 'seconds in [0.05, 5]');
  const emulatorDelay = num('emulator-delay', undefined, (v) => v >= 0 && v <= 0.05, 'seconds in [0, 0.05]');
  const bandRunOn = num('warning-band-run-on', undefined, (v) => v >= 0 && v <= 1, 'seconds in [0, 1]');
  const planningMargin = num('planning-margin', undefined, (v) => v >= 0 && v <= 0.05, 'metres in [0, 0.05]');
  const obstacleMaxAge = num('obstacle-max-age', 0.1, (v) => v > 0 && v <= 5, 'seconds in (0, 5]');
  const maxChunkRate = num(
    'max-chunk-rate',
    undefined,
    (v) => v >= 1 && v <= 10_000,
    'requests a second in [1, 10000]',
  );
  const controlFifo = num(
    'control-fifo',
    undefined,
    (v) => Number.isInteger(v) && v >= 1 && v <= 99,
    'a real-time priority from 1 to 99',
  );
  for (const v of [
    controlFifo,
    maxChunkRate,
    planningMargin,
    obstacleMaxAge,
    bandRunOn,
    rate,
    brokerPort,
    dashboardPort,
    duration,
    maxAge,
    maxAgeCeiling,
    deadMan,
    watchdog,
    busTimeout,
    armWatchdog,
    emulatorDelay,
  ])
    if (typeof v === 'string') return usageError(v);
  if (emulatorDelay !== undefined && !emulator) return usageError('--emulator-delay needs --emulator');
  if (maxAge !== undefined && maxAgeCeiling !== undefined)
    return usageError(
      '--max-age-ceiling bounds the derived max-age floor; with --max-age the floor is fixed (give one of them)',
    );
  const gateOpt = str('gate') ?? 'on';
  if (gateOpt !== 'on' && gateOpt !== 'off') return usageError(`--gate: expected on or off, got '${gateOpt}'`);
  const bandOpt = str('warning-band') ?? 'on';
  if (bandOpt !== 'on' && bandOpt !== 'off') return usageError(`--warning-band: expected on or off, got '${bandOpt}'`);
  if (bandOpt === 'off' && bandRunOn !== undefined)
    return usageError('--warning-band-run-on needs the warning band on');
  const chunkFilter = str('chunk-filter') ?? 'worker';
  if (chunkFilter !== 'worker' && chunkFilter !== 'inline')
    return usageError(`--chunk-filter: expected worker or inline, got '${chunkFilter}'`);
  const selfOpt = str('self-clearance');
  let selfClearance: number | null | undefined;
  if (selfOpt === 'off') selfClearance = null;
  else if (selfOpt !== undefined) {
    selfClearance = Number(selfOpt);
    if (selfOpt.trim() === '' || !(selfClearance >= 0 && selfClearance <= 0.1))
      return usageError(`--self-clearance: expected metres in [0, 0.1] or off, got '${selfOpt}'`);
  }
  const tiltOpt = str('held-tilt') ?? 'on';
  if (tiltOpt !== 'on' && tiltOpt !== 'off') return usageError(`--held-tilt: expected on or off, got '${tiltOpt}'`);
  let workspace: number[] | undefined;
  const ws = str('workspace');
  if (ws !== undefined) {
    workspace = ws.split(',').map(Number);
    if (
      workspace.length !== 6 ||
      workspace.some((v) => !Number.isFinite(v)) ||
      workspace[0]! >= workspace[3]! ||
      workspace[1]! >= workspace[4]! ||
      workspace[2]! >= workspace[5]!
    ) {
      return usageError(`--workspace: expected x0,y0,z0,x1,y1,z1 (m) with x0<x1, y0<y1, z0<z1, got '${ws}'`);
    }
  }
  const tracking = parseTrackingOptions(
    str('tracking'),
    str('obstacle-bodies'),
    str('bystanders'),
    str('tracking-frame-in-base'),
    str('obstacle-max-age') !== undefined ? (obstacleMaxAge as number) : undefined,
  );
  if (typeof tracking === 'string') return usageError(tracking);
  let obstacles: number[] | undefined;
  const obs = str('obstacles');
  if (obs !== undefined) {
    obstacles = [];
    for (const item of obs.split(';')) {
      const v = item.split(',').map((x) => (x.trim() === '' ? NaN : Number(x)));
      if (v.length !== 4 || v.some((x) => !Number.isFinite(x)) || !(v[3]! > 0)) {
        return usageError(`--obstacles: expected 'x,y,z,r' spheres (m, r > 0) separated by ';', got '${item}'`);
      }
      obstacles.push(...v);
    }
  }
  const mqttUrl = str('mqtt');
  const accessPath = str('access');
  if (mqttUrl && accessPath)
    return usageError(
      '--access configures the embedded broker; with --mqtt the external broker enforces access (credentials: ARMGUARD_MQTT_USERNAME / ARMGUARD_MQTT_PASSWORD or --mqtt-credentials)',
    );
  const linkLoss = str('on-link-loss') ?? 'hold';
  if (linkLoss !== 'hold' && linkLoss !== 'warn')
    return usageError(`--on-link-loss: expected hold or warn, got '${linkLoss}'`);
  const credentialsPath = str('mqtt-credentials');
  if (credentialsPath && !mqttUrl)
    return usageError('--mqtt-credentials is for an external broker (--mqtt); the embedded broker takes --access');

  const errors: string[] = [];
  let calibration: So101Calibration | undefined;
  try {
    const c = parseSo101Calibration(await readFile(calPath, 'utf8'), calPath);
    if (c.ok) calibration = c.value;
    else errors.push(...c.problems.map((e) => e.message));
  } catch (e) {
    errors.push(`${calPath}: cannot read: ${(e as Error).message}`);
  }
  // The learned residual runs only with onnxruntime-node (optional); without it the calibration's no-residual thresholds apply.
  let freeMotion: So101FreeMotion | undefined;
  if (calibration) {
    const residual = calibration.freeMotion.residualOnnx;
    freeMotion = await so101FreeMotion(
      calibration,
      residual === undefined ? undefined : resolve(dirname(calPath), residual),
    );
    calibration = freeMotion.calibration;
  }
  let access: AccessConfig | undefined;
  if (accessPath) {
    const a = await readAccessFile(accessPath);
    if (a.ok) access = a.value;
    else errors.push(...a.problems);
  } else if (!mqttUrl) {
    errors.push(
      'armguard run: the embedded broker needs --access <yaml> (users and roles; see hardware.md "Running a pilot"), or give --mqtt <url>',
    );
  }
  const spec = loadScoringSpec(specPathsFrom(str));
  if (!spec.ok) errors.push(...spec.problems);
  if (errors.length > 0 || !calibration || !spec.ok) return { ok: false, code: EXIT.failure, errors };
  if (!spec.spec.tasks.tasks.has(task))
    return {
      ok: false,
      code: EXIT.usage,
      errors: [`armguard run: unknown task '${task}' (known: ${[...spec.spec.tasks.tasks.keys()].join(', ')})`],
    };

  let broker: BrokerChoice;
  if (mqttUrl) {
    let u: URL;
    try {
      u = new URL(mqttUrl);
    } catch {
      return usageError(`--mqtt: '${mqttUrl}' is not a URL (expected mqtt://user:pass@host:1883)`);
    }
    if (u.password)
      return usageError(
        '--mqtt: a password in the URL is visible to every user in the process list: set ARMGUARD_MQTT_PASSWORD or give --mqtt-credentials <file>',
      );
    const creds = await brokerCredentials(credentialsPath, u.username ? decodeURIComponent(u.username) : undefined);
    if (!creds.ok) return { ok: false, code: EXIT.failure, errors: creds.errors };
    u.username = '';
    broker = { kind: 'external', url: u.toString(), ...creds.value };
  } else {
    broker = { kind: 'embedded', port: brokerPort as number, access: access! };
  }
  const semantic = parseSemanticRunOptions(
    str as (k: string) => string | undefined,
    (k) => p.options.get(k) === true,
    task,
    spec.versions.tasksFile,
    new Set(spec.spec.tasks.tasks.keys()),
  );
  if (!semantic.ok)
    return semantic.usage
      ? usageError(semantic.error)
      : { ok: false, code: EXIT.failure, errors: [`armguard run: ${semantic.error}`] };
  let dashboard: RunSessionOptions['dashboard'];
  if (dashboardPort !== undefined) {
    // Embedded broker: the dashboard reads with the broker's per-process viewer credentials.
    // External broker: with armguard's own credentials (its ACL lets armguard read the whole tree).
    const ext =
      broker.kind === 'external' && broker.username !== undefined && broker.password !== undefined
        ? { viewer: { username: broker.username, password: broker.password } }
        : {};
    if (broker.kind === 'external' && !ext.viewer)
      return usageError(
        '--dashboard with --mqtt needs broker credentials (ARMGUARD_MQTT_USERNAME / ARMGUARD_MQTT_PASSWORD or --mqtt-credentials)',
      );
    dashboard = { port: dashboardPort as number, ...ext };
  }
  return {
    ok: true,
    options: {
      calibration,
      calibrationFile: calPath,
      spec: spec.spec,
      specVersions: spec.versions,
      task,
      robotId,
      ...(freeMotion ? { freeMotion: freeMotion.model } : {}),
      episodesDir: str('episodes-dir') ?? 'episodes',
      rate: rate as number,
      gating: gateOpt === 'on',
      arm: emulator
        ? { kind: 'emulator', ...(typeof emulatorDelay === 'number' ? { replyDelayS: emulatorDelay } : {}) }
        : { kind: 'port', path: port! },
      broker,
      ...(dashboard ? { dashboard } : {}),
      ...(workspace ? { workspace } : {}),
      ...(obstacles ? { obstacles } : {}),
      ...(tracking ? { tracking } : {}),
      warningBand: bandOpt === 'on',
      chunkFilter,
      heldTilt: tiltOpt === 'on',
      ...(selfClearance !== undefined ? { selfClearance } : {}),
      ...(typeof planningMargin === 'number' ? { planningMargin } : {}),
      ...(typeof bandRunOn === 'number' ? { warningBandRunOn: bandRunOn } : {}),
      ...(duration !== undefined ? { durationS: duration as number } : {}),
      ...(maxAge !== undefined ? { minMaxAge: maxAge as number } : {}),
      ...(maxAgeCeiling !== undefined ? { maxAgeCeilingS: maxAgeCeiling as number } : {}),
      ...(deadMan !== undefined ? { deadManS: deadMan as number } : {}),
      ...(maxChunkRate !== undefined ? { chunkRate: chunkRateLimit(maxChunkRate as number) } : {}),
      onLinkLoss: linkLoss,
      ...(watchdog !== undefined ? { watchdogS: watchdog as number } : {}),
      ...(busTimeout !== undefined ? { busTimeoutS: busTimeout as number } : {}),
      ...(armWatchdog !== undefined ? { armWatchdogS: armWatchdog as number } : {}),
      ...(semantic.value ? { semantic: semantic.value } : {}),
    },
    ...(freeMotion?.notice ? { notice: freeMotion.notice } : {}),
    ...(typeof controlFifo === 'number' ? { controlFifo } : {}),
  };
}

/**
 * Credentials for an external broker: a file (`username:` / `password:`, not readable by group or
 * others) or the environment (ARMGUARD_MQTT_USERNAME, ARMGUARD_MQTT_PASSWORD); never argv.
 */
async function brokerCredentials(
  path: string | undefined,
  urlUsername: string | undefined,
): Promise<{ ok: true; value: { username?: string; password?: string } } | { ok: false; errors: string[] }> {
  if (path === undefined) {
    const username = process.env.ARMGUARD_MQTT_USERNAME ?? urlUsername;
    const password = process.env.ARMGUARD_MQTT_PASSWORD;
    return {
      ok: true,
      value: { ...(username !== undefined ? { username } : {}), ...(password !== undefined ? { password } : {}) },
    };
  }
  let text: string;
  try {
    const mode = (await stat(path)).mode;
    if ((mode & 0o077) !== 0)
      return {
        ok: false,
        errors: [
          `armguard run: ${path}: holds a broker password and is readable by group or other users (mode ${(mode & 0o777).toString(8)}): chmod 600 ${path}`,
        ],
      };
    text = await readFile(path, 'utf8');
  } catch (e) {
    return { ok: false, errors: [`armguard run: ${path}: cannot read: ${(e as Error).message}`] };
  }
  const r = new YamlReader(path, text, { syntaxColumns: false });
  if (r.ok) r.noExtraKeysAt([], ['username', 'password']);
  const username = r.ok ? r.stringAt(['username']) : '';
  const password = r.ok ? r.stringAt(['password']) : '';
  if (!r.ok) return { ok: false, errors: r.errors.map((p) => `armguard run: ${p.message}`) };
  return { ok: true, value: { username, password } };
}

/**
 * --tracking udp:[host:]port, --obstacle-bodies "body:r,…", --tracking-frame-in-base, --obstacle-max-age
 * → the session's tracking options; a string names what is wrong. The names follow the Franka
 * node's parameters (obstacle_bodies, tracking_frame_in_base, obstacle_max_age).
 */
export function parseTrackingOptions(
  tracking: string | undefined,
  bodies: string | undefined,
  bystanders: string | undefined,
  frame: string | undefined,
  maxAge: number | undefined,
): RunSessionOptions['tracking'] | string {
  if (tracking === undefined) {
    if (bodies !== undefined) return '--obstacle-bodies needs --tracking udp:[<host>:]<port>';
    if (bystanders !== undefined) return '--bystanders needs --tracking udp:[<host>:]<port>';
    if (frame !== undefined) return '--tracking-frame-in-base needs --tracking';
    if (maxAge !== undefined) return '--obstacle-max-age needs --tracking';
    return undefined;
  }
  const m = /^udp:(?:([^:]+):)?(\d{1,5})$/.exec(tracking);
  const port = m ? Number(m[2]) : NaN;
  if (!m || !(port <= 65535)) return `--tracking: expected udp:[<host>:]<port> (port 0..65535), got '${tracking}'`;
  if (bodies === undefined && bystanders === undefined)
    return '--tracking needs --obstacle-bodies "body:r,…" (the bodies the arm keeps clear of) or --bystanders';
  const specs: { body: string; radius: number }[] = [];
  for (const item of bodies === undefined ? [] : bodies.split(',')) {
    const i = item.lastIndexOf(':');
    const body = item.slice(0, i).trim();
    const radius = Number(item.slice(i + 1));
    if (i <= 0 || body === '' || !(radius > 0 && radius < 2))
      return `--obstacle-bodies: expected 'body:r' (r in m, 0 < r < 2) separated by ',', got '${item}'`;
    if (specs.some((s) => s.body === body)) return `--obstacle-bodies: body '${body}' listed twice`;
    specs.push({ body, radius });
  }
  let inBase: [number, number, number, number, number, number] = [0, 0, 0, 0, 0, 0];
  if (frame !== undefined) {
    const v = frame.split(',').map(Number);
    if (v.length !== 6 || v.some((x) => !Number.isFinite(x)))
      return `--tracking-frame-in-base: expected x,y,z,roll,pitch,yaw (m, rad), got '${frame}'`;
    inBase = v as typeof inBase;
  }
  const still = bystanders === undefined ? [] : bystanders.split(',').map((b) => b.trim());
  if (still.some((b) => b === '')) return `--bystanders: expected body names separated by ',', got '${bystanders}'`;
  return {
    port,
    ...(m[1] !== undefined ? { host: m[1] } : {}),
    bodies: specs,
    ...(still.length > 0 ? { bystanders: still } : {}),
    trackingInBase: inBase,
    maxAge: maxAge ?? 0.1,
  };
}

/** The start-up line naming what the CBF keeps besides the environment clearances. */
export function describeRunCbf(cbf: RunSession['runtime']['cbf'], gating: boolean): string {
  if (!gating) return 'cbf: not applied (gate off: chunks forwarded unfiltered)';
  const self =
    cbf.selfClearance === null ? 'self pair off (--self-clearance off)' : `self clearance ${cbf.selfClearance} m`;
  const tilt =
    cbf.heldTiltDeg === null
      ? 'held tilt off'
      : `held tilt ≤ ${cbf.heldTiltDeg.toFixed(1)}° while the gripper (column 5) is commanded below ${cbf.closedBelow.toFixed(3)} rad`;
  return `cbf: ${self}; ${tilt}; planning margin ${cbf.planningMargin} m`;
}

/** The start-up line naming what the warning band predicts and its constants (or why it is off). */
export function describeRunBand(band: RunSession['runtime']['band'], gating: boolean): string {
  if (!band) return 'warning band: off (--warning-band off)';
  if (!gating) return 'warning band: not applied (gate off: chunks forwarded unfiltered)';
  if (band.clauses.length === 0) return 'warning band: no applicable clause declares one';
  const clauses = band.clauses.map((c) => `${c.id} (${c.action}, ε ${c.epsilon})`).join(', ');
  return `warning band: ${clauses}; ${band.notes.join('; ')}`;
}

/** The shutdown line's account of the arm: held, not commanded, or the hold that failed. */
export function describeShutdownHold(h: RunSession['shutdownHold']): string {
  switch (h?.kind) {
    case 'held':
      return 'arm held';
    case 'not-commanded':
      return 'arm not commanded (monitor only)';
    case 'failed':
      return `arm NOT held (shutdown hold failed: ${h.detail})`;
    case undefined:
      return 'arm state unknown (shutdown did not run)';
  }
}

const HOLD_FAILED_ADVICE =
  'armguard run: the arm was NOT held at shutdown: secure it with its own e-stop or power switch';

export const runCommand: Command = {
  name: 'run',
  help: HELP,
  async run(args: string[], io: CliIo): Promise<number> {
    const parsed = await parseRunArgs(args);
    if (!parsed.ok) {
      for (const e of parsed.errors) io.err(e);
      return parsed.code;
    }
    const log = (line: string): void => io.err(`[armguard] ${line}`);
    if (parsed.notice) log(parsed.notice);
    // Signals are caught from before the arm is connected: one arriving during start-up ends the
    // session as soon as it is running (holding the arm, closing the episode).
    let session: RunSession | undefined;
    let pendingStop: string | undefined;
    const quit = (why: string) => () => {
      log(`${why}: holding the arm and closing the episode`);
      if (session) session.requestStop(why);
      else pendingStop ??= why;
    };
    const onSigint = quit('SIGINT');
    const onSigterm = quit('SIGTERM');
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigterm);
    const detachSignals = (): void => {
      process.off('SIGINT', onSigint);
      process.off('SIGTERM', onSigterm);
    };
    try {
      session = await RunSession.start({ ...parsed.options, clock: systemClock, timers: systemTimers, log });
    } catch (e) {
      // RunSession.start stops everything it had started before rethrowing.
      detachSignals();
      io.err(`armguard run: ${(e as Error).message}; everything started so far was stopped`);
      return EXIT.failure;
    }
    const live = session;
    if (pendingStop) live.requestStop(pendingStop);
    if (parsed.controlFifo !== undefined) {
      // after the workers started: they keep the normal policy (chrt -p sets this one thread)
      const rt = realtimeMainThread(parsed.controlFifo);
      if (!rt.ok) {
        io.err(`armguard run: --control-fifo ${parsed.controlFifo}: ${rt.reason}; holding the arm and stopping`);
        await live.stop('start-up failure: --control-fifo');
        detachSignals();
        io.err(`armguard run: everything started so far was stopped; ${describeShutdownHold(live.shutdownHold)}`);
        if (live.shutdownHold?.kind === 'failed') io.err(HOLD_FAILED_ADVICE);
        return EXIT.failure;
      }
      io.out(`control thread: SCHED_FIFO priority ${rt.priority} (thread ${rt.tid}; the workers at the normal policy)`);
    }
    const o = parsed.options;
    io.out(
      `armguard run: ${o.arm.kind === 'emulator' ? `emulated SO-101 on ${session.conn.path}` : `SO-101 on ${session.conn.path}`}; robot ${o.robotId}; task ${o.task}; gate ${o.gating ? 'on' : 'off (BASELINE run: chunks forwarded unfiltered; violations recorded, not held)'}`,
    );
    io.out(`clauses: ${session.runtime.clauses.join(', ') || '(none applicable)'}`);
    io.out(
      `thresholds monitored: ${session.runtime.thresholds.map((t) => `${t.clause} ${t.tau} ${t.unit} (${t.from})`).join('; ') || '(none)'}`,
    );
    io.out(describeRunCbf(session.runtime.cbf, o.gating));
    io.out(describeRunBand(session.runtime.band, o.gating));
    io.out(
      `mqtt: ${session.brokerUrl} — chunks on armguard/v1/${o.robotId}/chunk/request${o.gating ? '' : ' (forwarded unfiltered: baseline)'}`,
    );
    io.out(`episode: ${session.episodes.path}`);
    const detachKeys = attachOperatorKeys(process.stdin, (a) => void live.act(a));
    if (detachKeys) io.err(OPERATOR_KEYS_HELP);
    const reason = await session.done;
    await session.stop(reason);
    detachKeys?.();
    detachSignals();
    const ended = session.episodes.finished;
    io.out(
      `stopped (${reason}); ${describeShutdownHold(session.shutdownHold)}; ${ended.length} episode file(s): ${session.episodes.paths.join(', ')}`,
    );
    if (session.shutdownHold?.kind === 'failed') {
      io.err(HOLD_FAILED_ADVICE);
      return EXIT.failure;
    }
    const losses = session.episodes.losses;
    if (losses.length > 0) {
      for (const l of losses)
        io.err(
          `armguard run: ${l.path}: ${l.records === undefined ? 'an unknown number of' : l.records} record(s) lost to storage faults`,
        );
      const known = losses.reduce((n, l) => n + (l.records ?? 0), 0);
      io.err(
        `armguard run: data lost: ${losses.some((l) => l.records === undefined) ? 'at least ' : ''}${known} record(s) in ${losses.length} episode(s) were not written`,
      );
      return EXIT.failure;
    }
    return EXIT.ok;
  },
};
