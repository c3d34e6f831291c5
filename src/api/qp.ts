/** `armguard/qp`: the stage-structured QP solver (OSQP form, Float64Array, no dependencies). */
export * from '../qp/index.js';
