/**
 * ROS 2 message definition texts for the types armguard writes to bags (and the Franka types it
 * reads). Texts follow the upstream .msg files: builtin_interfaces, std_msgs, geometry_msgs,
 * sensor_msgs (ros2/common_interfaces) and franka_msgs from franka_ros2 `humble` v2.5.0
 * (hardware-facts §A1: Errors.msg has 36 bools there; newer franka_ros2 adds five more at the end —
 * a bag recorded on a newer robot carries its own definition, which the reader uses).
 *
 * Keys are rosbag2 schema names (`pkg/msg/Type`); field types inside a text are written as in the
 * .msg file (same-package types unqualified).
 */
export const MSG_DEFINITIONS: Readonly<Record<string, string>> = {
  'builtin_interfaces/msg/Time': `# This message communicates ROS Time defined here:
# https://design.ros2.org/articles/clock_and_time.html

# The seconds component, valid over all int32 values.
int32 sec

# The nanoseconds component, valid in the range [0, 1e9).
uint32 nanosec
`,
  'std_msgs/msg/Header': `# Standard metadata for higher-level stamped data types.
# This is generally used to communicate timestamped data
# in a particular coordinate frame.

# Two-integer timestamp that is expressed as seconds and nanoseconds.
builtin_interfaces/Time stamp

# Transform frame with which this data is associated.
string frame_id
`,
  'geometry_msgs/msg/Vector3': `# This represents a vector in free space.

float64 x
float64 y
float64 z
`,
  'geometry_msgs/msg/Point': `# This contains the position of a point in free space
float64 x
float64 y
float64 z
`,
  'geometry_msgs/msg/Quaternion': `# This represents an orientation in free space in quaternion form.

float64 x 0
float64 y 0
float64 z 0
float64 w 1
`,
  'geometry_msgs/msg/Pose': `# A representation of pose in free space, composed of position and orientation.

Point position
Quaternion orientation
`,
  'geometry_msgs/msg/PoseStamped': `# A Pose with reference coordinate frame and timestamp

std_msgs/Header header
Pose pose
`,
  'geometry_msgs/msg/Wrench': `# This represents force in free space, separated into its linear and angular parts.

Vector3  force
Vector3  torque
`,
  'geometry_msgs/msg/WrenchStamped': `# A wrench with reference coordinate frame and timestamp

std_msgs/Header header
Wrench wrench
`,
  'geometry_msgs/msg/Twist': `# This expresses velocity in free space broken into its linear and angular parts.

Vector3  linear
Vector3  angular
`,
  'geometry_msgs/msg/TwistStamped': `# A twist with reference coordinate frame and timestamp

std_msgs/Header header
Twist twist
`,
  'geometry_msgs/msg/Accel': `# This expresses acceleration in free space broken into its linear and angular parts.
Vector3  linear
Vector3  angular
`,
  'geometry_msgs/msg/AccelStamped': `# An accel with reference coordinate frame and timestamp
std_msgs/Header header
Accel accel
`,
  'geometry_msgs/msg/Inertia': `# Mass [kg]
float64 m

# Center of mass [m]
geometry_msgs/Vector3 com

# Inertia Tensor [kg-m^2]
#     | ixx ixy ixz |
# I = | ixy iyy iyz |
#     | ixz iyz izz |
float64 ixx
float64 ixy
float64 ixz
float64 iyy
float64 iyz
float64 izz
`,
  'geometry_msgs/msg/InertiaStamped': `std_msgs/Header header
Inertia inertia
`,
  'sensor_msgs/msg/JointState': `# This is a message that holds data to describe the state of a set of torque controlled joints.
#
# The state of each joint (revolute or prismatic) is defined by:
#  * the position of the joint (rad or m),
#  * the velocity of the joint (rad/s or m/s) and
#  * the effort that is applied in the joint (Nm or N).
#
# Each joint is uniquely identified by its name.
# The header specifies the time at which the joint states were recorded. All the joint states
# in one message have to be recorded at the same time.
#
# This message consists of a multiple arrays, one for each part of the joint state.
# The goal is to make each of the fields optional. When e.g. your joints have no
# effort associated with them, you can leave the effort array empty.
#
# All arrays in this message should have the same size, or be empty.
# This is the only way to uniquely associate the joint name with the correct
# states.

std_msgs/Header header

string[] name
float64[] position
float64[] velocity
float64[] effort
`,
  'franka_msgs/msg/CollisionIndicators': `geometry_msgs/Vector3 is_cartesian_linear_collision
geometry_msgs/Vector3 is_cartesian_angular_collision
geometry_msgs/Vector3 is_cartesian_linear_contact
geometry_msgs/Vector3 is_cartesian_angular_contact
float64[7] is_joint_collision
float64[7] is_joint_contact
`,
  'franka_msgs/msg/Elbow': `float64[2] position
float64[2] desired_position
float64[2] commanded_position
float64[2] commanded_velocity
float64[2] commanded_acceleration
`,
  'franka_msgs/msg/Errors': `bool joint_position_limits_violation
bool cartesian_position_limits_violation
bool self_collision_avoidance_violation
bool joint_velocity_violation
bool cartesian_velocity_violation
bool force_control_safety_violation
bool joint_reflex
bool cartesian_reflex
bool max_goal_pose_deviation_violation
bool max_path_pose_deviation_violation
bool cartesian_velocity_profile_safety_violation
bool joint_position_motion_generator_start_pose_invalid
bool joint_motion_generator_position_limits_violation
bool joint_motion_generator_velocity_limits_violation
bool joint_motion_generator_velocity_discontinuity
bool joint_motion_generator_acceleration_discontinuity
bool cartesian_position_motion_generator_start_pose_invalid
bool cartesian_motion_generator_elbow_limit_violation
bool cartesian_motion_generator_velocity_limits_violation
bool cartesian_motion_generator_velocity_discontinuity
bool cartesian_motion_generator_acceleration_discontinuity
bool cartesian_motion_generator_elbow_sign_inconsistent
bool cartesian_motion_generator_start_elbow_invalid
bool cartesian_motion_generator_joint_position_limits_violation
bool cartesian_motion_generator_joint_velocity_limits_violation
bool cartesian_motion_generator_joint_velocity_discontinuity
bool cartesian_motion_generator_joint_acceleration_discontinuity
bool cartesian_position_motion_generator_invalid_frame
bool force_controller_desired_force_tolerance_violation
bool controller_torque_discontinuity
bool start_elbow_sign_inconsistent
bool communication_constraints_violation
bool power_limit_violation
bool joint_p2p_insufficient_torque_for_planning
bool tau_j_range_violation
bool instability_detected
`,
  'franka_msgs/msg/FrankaRobotState': `std_msgs/Header header

# Indicates which dimensions have an active contact/collision flag raised
CollisionIndicators collision_indicators

# The joint state consisting out of position (q), velocity (dq) and effort (tau_J)
sensor_msgs/JointState measured_joint_state
# The desired joint state consisting out of position (q_d), velocity (dq_d) and effort (tau_J_d)
sensor_msgs/JointState desired_joint_state
# The measured motor state of the joints consisting out of position (theta) and velocity (dtheta)
sensor_msgs/JointState measured_joint_motor_state

# The desired joint acceleration
float64[7] ddq_d
# The derivative of the measured torque signal
float64[7] dtau_j

# Filtered external torque. The JointState consists out of effort (tau_ext_hat_filtered)
sensor_msgs/JointState tau_ext_hat_filtered

# The state of the elbow
Elbow elbow

# The active wrenches acting on the stiffness frame expressed relative to stiffness frame
geometry_msgs/WrenchStamped k_f_ext_hat_k
# The active wrenches acting on the stiffness frame expressed relative to base frame
geometry_msgs/WrenchStamped o_f_ext_hat_k

geometry_msgs/InertiaStamped inertia_ee
geometry_msgs/InertiaStamped inertia_load
geometry_msgs/InertiaStamped inertia_total

# Measured end effector pose in base frame
geometry_msgs/PoseStamped o_t_ee
# Last desired end effector pose of motion generation in base frame
geometry_msgs/PoseStamped o_t_ee_d
# Last commanded end effector pose of motion generation in base frame
geometry_msgs/PoseStamped o_t_ee_c
# Flange to end effector frame
geometry_msgs/PoseStamped f_t_ee
# End effector to stiffness frame
geometry_msgs/PoseStamped ee_t_k

geometry_msgs/TwistStamped o_dp_ee_d
geometry_msgs/TwistStamped o_dp_ee_c
geometry_msgs/AccelStamped o_ddp_ee_c

# Strictly monotonically increasing timestamp since robot start [s]
float64 time
# Percentage of the last 100 control commands that were successfully received by the robot
float64 control_command_success_rate

uint8 ROBOT_MODE_OTHER=0
uint8 ROBOT_MODE_IDLE=1
uint8 ROBOT_MODE_MOVE=2
uint8 ROBOT_MODE_GUIDING=3
uint8 ROBOT_MODE_REFLEX=4
uint8 ROBOT_MODE_USER_STOPPED=5
uint8 ROBOT_MODE_AUTOMATIC_ERROR_RECOVERY=6
uint8 robot_mode

Errors current_errors
Errors last_motion_errors
`,
};

const SEPARATOR = '='.repeat(80);

/** `geometry_msgs/Pose` or `geometry_msgs/msg/Pose` → `geometry_msgs/msg/Pose`. */
export function canonicalTypeName(type: string): string {
  const parts = type.split('/');
  if (parts.length === 2) return `${parts[0]}/msg/${parts[1]}`;
  return type;
}

/** `geometry_msgs/msg/Pose` → `geometry_msgs/Pose` (the form rosbag2 uses after `MSG:`). */
export function shortTypeName(type: string): string {
  const parts = type.split('/');
  return parts.length === 3 ? `${parts[0]}/${parts[2]}` : type;
}

const PRIMITIVES = new Set([
  'bool',
  'byte',
  'char',
  'float32',
  'float64',
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'string',
  'wstring',
]);

/** The complex types a definition text refers to, qualified against its own package. */
export function referencedTypes(ownType: string, text: string): string[] {
  const pkg = ownType.split('/')[0] ?? '';
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*/, '').trim();
    if (!line || line.includes('=')) continue;
    const first = line.split(/\s+/)[0] ?? '';
    const base = first.replace(/\[.*$/, '').replace(/<=\d+$/, '');
    if (PRIMITIVES.has(base)) continue;
    out.push(canonicalTypeName(base.includes('/') ? base : `${pkg}/${base}`));
  }
  return out;
}

/**
 * The full definition text of `type` as rosbag2 stores it in an MCAP schema: the type's own text,
 * then each dependency once (depth-first, in order of first use) after a line of 80 '=' and
 * `MSG: pkg/Type`. Throws for a type armguard has no definition for.
 */
export function fullDefinition(type: string, definitions: Readonly<Record<string, string>> = MSG_DEFINITIONS): string {
  const root = canonicalTypeName(type);
  const rootText = definitions[root];
  if (rootText === undefined) throw new Error(`no message definition for ${type}`);
  const seen = new Set<string>([root]);
  const blocks: string[] = [];
  const visit = (t: string, text: string): void => {
    for (const dep of referencedTypes(t, text)) {
      if (seen.has(dep)) continue;
      seen.add(dep);
      const depText = definitions[dep];
      if (depText === undefined) throw new Error(`no message definition for ${dep} (used by ${t})`);
      blocks.push(`${SEPARATOR}\nMSG: ${shortTypeName(dep)}\n${depText}`);
      visit(dep, depText);
    }
  };
  visit(root, rootText);
  return [rootText, ...blocks].join('\n');
}
