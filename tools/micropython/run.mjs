// Run a MicroPython script under the real MicroPython VM (the WebAssembly port of the compiler and interpreter
// the Pico runs), for the firmware tests (tests/firmware/test_fw_micropython.py).
//
//   node tools/micropython/run.mjs [--heap BYTES] [--copy VFS_PATH=HOST_PATH ...] SCRIPT.py
//
// --copy puts a host file or directory (its *.py and *.json files, recursively) into the VM's file system before
// the script runs; /lib is on MicroPython's sys.path. Exit status: 0 when the script ran to its end, 1 when it
// raised (the traceback is on stderr), 2 on a usage error.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.join(here, "node_modules", "@micropython", "micropython-webassembly-pyscript", "micropython.mjs");

const args = process.argv.slice(2);
let heap = 1024 * 1024; // the initial GC heap (this port grows it on demand; the Pico has about 190 KiB)
const copies = [];
let script = null;
for (let i = 0; i < args.length; i++) {
  if (args[i] === "--heap") heap = parseInt(args[++i], 10);
  else if (args[i] === "--copy") copies.push(args[++i]);
  else script = args[i];
}
if (!script || !Number.isFinite(heap)) {
  process.stderr.write("usage: run.mjs [--heap BYTES] [--copy VFS=HOST ...] SCRIPT.py\n");
  process.exit(2);
}

const { loadMicroPython } = await import(pkg);
const mp = await loadMicroPython({
  heapsize: heap,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});

function mkdirs(vfsPath) {
  let at = "";
  for (const part of vfsPath.split("/").filter(Boolean)) {
    at += "/" + part;
    try { mp.FS.mkdir(at); } catch (e) { /* exists */ }
  }
}

function copy(vfsPath, hostPath) {
  const stat = fs.statSync(hostPath);
  if (stat.isDirectory()) {
    mkdirs(vfsPath);
    for (const name of fs.readdirSync(hostPath)) {
      if (name === "__pycache__") continue;
      const child = path.join(hostPath, name);
      if (fs.statSync(child).isDirectory() || /\.(py|json)$/.test(name)) copy(vfsPath + "/" + name, child);
    }
  } else {
    mkdirs(path.posix.dirname(vfsPath));
    mp.FS.writeFile(vfsPath, fs.readFileSync(hostPath));
  }
}

for (const spec of copies) {
  const eq = spec.indexOf("=");
  copy(spec.slice(0, eq), spec.slice(eq + 1));
}

try {
  mp.runPython(fs.readFileSync(script, "utf8"));
} catch (err) {
  process.stderr.write(String(err && err.message ? err.message : err) + "\n");
  process.exit(1);
}
