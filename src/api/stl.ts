/** `armguard/stl`: the STL engine — parse, print, evaluate offline, monitor online (README "Using armguard as a library"). */
export * from '../stl/index.js';
