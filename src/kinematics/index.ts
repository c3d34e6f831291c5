/**
 * Pure kinematics core: forward kinematics, link capsules, distances and the CBF barrier. No I/O;
 * every hot-path function writes into preallocated Float64Arrays.
 */
export * from './transform.js';
export * from './chain.js';
export * from './distance.js';
export * from './capsules.js';
export * from './description.js';
export * from './obstacles.js';
export * from './clearance-gradient.js';
export * from './barrier.js';
export * from './so101.js';
export * from './panda.js';
export * from './force.js';
export * from './derivatives.js';
export * from './tcp-motion.js';
