// Loaded with `--import` by `npm run test:node`. The suite starts hundreds of Node processes (a
// process per test file, and each `key-service` and browser host a test spawns); with Node's
// compile cache on, and NODE_COMPILE_CACHE passed down to every one of them, each module of the
// app and its dependencies is compiled once for the whole run instead of once per process.
import { enableCompileCache } from "node:module";

const { directory } = enableCompileCache();
if (directory !== undefined && process.env.NODE_COMPILE_CACHE === undefined) {
  process.env.NODE_COMPILE_CACHE = directory;
}
