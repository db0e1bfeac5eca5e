// Public surface of the drift loop: the controller, the pure detector, and the --drift-interval flag.
export { DriftController, type DriftControllerOptions, registerDriftController } from './controller.ts';
export { type Difference, type DriftResult, detectDrift } from './detect.ts';
export { type DriftInterval, parseDriftInterval } from './options.ts';
