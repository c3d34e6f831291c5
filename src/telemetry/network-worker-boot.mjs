// Worker-thread entry when armguard runs from TypeScript sources: registers the TypeScript loader
// in this thread (loaders do not carry over to workers), then loads the network host.
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.entry);
