// Build the JupyterLab plugin into mewrk_jupyter/labextension (the folder an install puts in
// share/jupyter/labextensions/mewrk-jupyter): tsc compiles src/ into lib/, then JupyterLab's builder
// (`jupyter-builder build`, which comes with JupyterLab 4.6) bundles lib/ as a prebuilt extension. The
// stamp written into that folder (js/stamp.mjs) is the hash of the sources it was built from, so the
// Python build hook can tell a stale build.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { inputs, stamp } from "../js/stamp.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const outdir = join(here, "..", "mewrk_jupyter", "labextension");

/** The files whose content decides the build: sources, the package files, the compiler's options and this script. */
const sources = () => inputs(here, ["build.mjs", "package-lock.json", "package.json", "tsconfig.json"]);

execFileSync(join(here, "node_modules", ".bin", "tsc"), ["-p", here], { stdio: "inherit" });
execFileSync("jupyter-builder", ["build", here], { stdio: "inherit" });
writeFileSync(join(outdir, "build.stamp"), stamp(here, sources()) + "\n");
