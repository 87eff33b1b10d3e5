// Bundle js/src into one self-contained ES module (+ its CSS) inside the Python package.
// `node build.mjs` builds once; `--watch` rebuilds on change. The stamp written next to the bundle
// is the hash of the sources it was built from, so the Python build hook can tell a stale bundle.
import { build, context } from "esbuild";
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const outdir = join(here, "..", "mewrk_jupyter", "static");

/** The files whose content decides the bundle: sources, lock file and this script. */
export function inputs() {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(here, "src"));
  const posix = (file) => relative(here, file).split("\\").join("/");
  files.sort((a, b) => (posix(a) < posix(b) ? -1 : posix(a) > posix(b) ? 1 : 0));
  files.push(join(here, "package-lock.json"), join(here, "build.mjs"), join(here, "package.json"));
  return files;
}

function stamp() {
  const hash = createHash("sha256");
  for (const file of inputs()) {
    hash.update(relative(here, file).split("\\").join("/"));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const options = {
  entryPoints: { widget: join(here, "src", "index.ts") },
  outdir,
  bundle: true,
  format: "esm",
  target: "es2020",
  minify: true,
  sourcemap: false,
  legalComments: "eof",
  logLevel: "info",
};

if (process.argv.includes("--watch")) {
  const ctx = await context(options);
  await ctx.watch();
} else {
  await build(options);
  writeFileSync(join(outdir, "widget.stamp"), stamp() + "\n");
}
