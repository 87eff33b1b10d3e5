// The stamp a build writes next to what it built: the hash of the sources it was built from, so that
// the Python build hook (hatch_build.py, which hashes the same files the same way) can tell a stale
// build. Shared by js/build.mjs (the widget) and labextension/build.mjs (the JupyterLab plugin).
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

/** The files below `root`/src in the order of their paths, then `last` (paths relative to `root`). */
export function inputs(root, last) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(root, "src"));
  const posix = (file) => relative(root, file).split("\\").join("/");
  files.sort((a, b) => (posix(a) < posix(b) ? -1 : posix(a) > posix(b) ? 1 : 0));
  return [...files, ...last.map((name) => join(root, name))];
}

/** The hash of each file's path (relative to `root`) and bytes, in order. */
export function stamp(root, files) {
  const hash = createHash("sha256");
  for (const file of files) {
    hash.update(relative(root, file).split("\\").join("/"));
    hash.update("\0");
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}
