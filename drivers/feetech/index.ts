/**
 * Feetech STS3215 driver: protocol, framer, register table, bus over serialport, and the servo
 * emulator (in-process via serialport's mock binding, or on a pty/serial port).
 */
export * from './sign-magnitude.js';
export * from './protocol.js';
export * from './registers.js';
export * from './framer.js';
export * from './link.js';
export * from './bus.js';
export * from './emulator/servo.js';
export * from './emulator/emulator.js';
export * from './emulator/mock-binding.js';
export * from './emulator/serve.js';
export * from './emulator/physics.js';
export * from './socat-pty.js';
