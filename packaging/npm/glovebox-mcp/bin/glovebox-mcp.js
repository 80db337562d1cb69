#!/usr/bin/env node
// Starts the glovebox binary of this platform's package (an optional
// dependency npm installs only where its `os`, `cpu` and `libc` match) with
// the same arguments, stdin, stdout and stderr; passes signals on and exits
// as it does. On a platform with no binary it says which platform it found
// and exits 4 (glovebox's "not possible here").
"use strict";

const { spawn } = require("child_process");

// `${process.platform} ${process.arch}` -> the package holding the binary,
// and the binary's name in its bin/. aarch64 would add "linux arm64":
// "glovebox-mcp-linux-arm64" (docs/packages.md).
const PACKAGES = {
  "linux x64": ["glovebox-mcp-linux-x64", "glovebox"],
  "win32 x64": ["glovebox-mcp-win32-x64", "glovebox.exe"],
};
const UNAVAILABLE = 4;

function fail(message) {
  process.stderr.write(`glovebox-mcp: ${message}\n`);
  process.exit(UNAVAILABLE);
}

const platform = `${process.platform} ${process.arch}`;
if (!PACKAGES[platform]) {
  fail(
    `no glovebox binary for ${platform}: this package carries one for Linux x64 (glibc) and ` +
      "Windows x64 only. See https://github.com/glovebox-rs/glovebox for the other ways to install it.",
  );
}
const [name, file] = PACKAGES[platform];
let binary;
try {
  binary = require.resolve(`${name}/bin/${file}`);
} catch {
  fail(
    `its binary package ${name} is not installed: npm skips optional dependencies with ` +
      "--omit=optional, and on a system whose C library is not glibc. Reinstall without " +
      "--omit=optional, or install glovebox another way (https://github.com/glovebox-rs/glovebox).",
  );
}
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("error", (error) => fail(`${binary} did not start: ${error.message}`));
child.on("exit", (code, signal) => {
  if (signal) {
    process.removeAllListeners(signal);
    process.kill(process.pid, signal);
  } else {
    process.exit(code === null ? 1 : code);
  }
});
