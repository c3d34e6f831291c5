// Lint, including the import-direction rules of design §1/§13: the core (stl, qp, schema, safety,
// gate, kinematics, util) and the MCAP library (mcap) import nothing from drivers, ROS, MQTT,
// files or the clock; episodes and reports import nothing from drivers.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const platformModules = [
  'node:*',
  'fs',
  'fs/*',
  'path',
  'os',
  'child_process',
  'net',
  'http',
  'https',
  'dgram',
  'worker_threads',
  'serialport',
  '@serialport/*',
  'mqtt',
  'aedes',
  'ws',
  'rclnodejs',
  '@mcap/*',
  '@foxglove/*',
  '@mujoco/*',
  'onnxruntime-node',
  'hyparquet',
  'playwright-core',
];
const outerLayers = [
  '**/drivers/**',
  '**/cli/**',
  '**/runtime/**',
  '**/telemetry/**',
  '**/episode/**',
  '**/report/**',
  '**/ports/**',
  '**/calibration/**',
  '**/platform/**',
];
const clockRules = {
  'no-restricted-globals': [
    'error',
    { name: 'performance', message: 'Core code never reads the clock: time is passed in.' },
    { name: 'setTimeout', message: 'Core code takes no timers: time is passed in.' },
    { name: 'setInterval', message: 'Core code takes no timers: time is passed in.' },
    { name: 'process', message: 'Core code is platform-free.' },
  ],
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message: 'Core code never reads the clock: time is passed in.' },
    { object: 'Math', property: 'random', message: 'Core code takes randomness as input (seeded).' },
  ],
  'no-restricted-syntax': [
    'error',
    { selector: "NewExpression[callee.name='Date'][arguments.length=0]", message: 'Core code never reads the clock.' },
  ],
};
const core = (dir, extraForbidden) => ({
  files: [`src/${dir}/**/*.ts`],
  rules: {
    ...clockRules,
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: platformModules, message: `src/${dir} is platform-free core: no I/O, drivers, ROS or MQTT.` },
          { group: [...outerLayers, ...extraForbidden], message: `src/${dir} must not depend on outer layers.` },
        ],
      },
    ],
  },
});

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'coverage/**', 'artifacts/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node }, ecmaVersion: 2023, sourceType: 'module' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  core('util', ['**/stl/**', '**/qp/**', '**/schema/**', '**/safety/**', '**/gate/**']),
  core('stl', ['**/qp/**', '**/schema/**', '**/safety/**', '**/gate/**']),
  core('qp', ['**/stl/**', '**/schema/**', '**/safety/**', '**/gate/**']),
  core('schema', ['**/qp/**', '**/gate/**', '**/safety/**']),
  core('safety', ['**/qp/**', '**/gate/**']),
  core('kinematics', ['**/stl/**', '**/qp/**', '**/safety/**', '**/gate/**']),
  core('gate', []),
  core('semantic', ['**/qp/**', '**/gate/**']),
  {
    // The MCAP / rosbag2 format library: pure like the core, except that it is built on the MCAP
    // and ROS message libraries. Bytes come in as a ByteSource and leave through a FileWritable.
    files: ['src/mcap/**/*.ts'],
    rules: {
      ...clockRules,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: platformModules.filter((m) => m !== '@mcap/*' && m !== '@foxglove/*'),
              message: 'src/mcap is a pure format library: no I/O, drivers, ROS runtime or MQTT.',
            },
            {
              group: [...outerLayers, '**/nodes/**', '**/doctor/**'],
              message: 'src/mcap must not depend on outer layers.',
            },
          ],
        },
      ],
    },
  },
  {
    // The runtime (pipeline, chunk path, the session every platform runs and its rig/episode ports)
    // composes the core: drivers, files, MQTT and the clock are wired by the entry points
    // (src/cli/commands, src/nodes, src/rigs) and handed in behind ports. Episode record types may
    // be named; the episode files themselves are behind the EpisodeStore port.
    files: ['src/runtime/**/*.ts'],
    rules: {
      ...clockRules,
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: platformModules,
              message: 'src/runtime takes its I/O through ports: no files, network, ROS or MQTT.',
            },
            {
              group: [
                '**/drivers/**',
                '**/cli/**',
                '**/telemetry/**',
                '**/report/**',
                '**/calibration/**',
                '**/platform/**',
                '**/nodes/**',
                '**/rigs/**',
              ],
              message:
                'src/runtime must not depend on drivers, entry points or telemetry: a platform hands them in as a rig.',
            },
            {
              group: ['**/episode/**'],
              allowTypeImports: true,
              message:
                'src/runtime records through the EpisodeStore port (episode-tap.ts): only episode types may be imported.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/episode/**/*.ts', 'src/report/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['**/drivers/**'], message: 'episodes and reports use src/mcap and the ports, never drivers/.' },
          ],
        },
      ],
    },
  },
  {
    files: ['drivers/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/src/cli/**', '**/src/runtime/**', '**/src/stl/**', '**/src/gate/**', '**/src/telemetry/**'],
              message: 'drivers implement ports; they know nothing of STL, the gate or the CLI.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'bench/**/*.mjs'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
