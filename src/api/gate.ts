/** `armguard/gate`: the gate state machine, chunk screen and chunk-level CBF filter. */
export * from '../gate/index.js';
export { SIGNALS, SignalFrame, signalIndex, type SignalName } from '../schema/signals.js';
