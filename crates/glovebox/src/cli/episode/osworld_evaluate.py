#!/usr/bin/env python3
"""OSWorld's own evaluator on a glovebox episode.

glovebox runs an OSWorld-format task's config steps and its agent; this
script scores what the agent left behind with OSWorld's code as it ships on
PyPI (`desktop-env`, installed with `--no-deps` beside the packages in
`requirements.txt`): `DesktopEnv._set_evaluator_info` picks the metric and
getter functions named by the task, and `DesktopEnv.evaluate` reads the
getters and combines the metrics. Nothing of their scoring is written here.

What this script supplies is the VM's side of the wire, on loopback, for
the getters that read the desktop through OSWorld's `PythonController`
(`/execute`, `/file`, `/list_directory`, `/screen_size`): the same requests,
answered from the episode's own home and display instead of a VM's. The
VM's `/home/user` is the episode's home.

Two modes, each printing one JSON object on stdout:
  check TASK           {"supported": true} or {"not_run": REASON}: every
                       metric imports and every getter is one served here.
  evaluate TASK ...    {"score": S, "log": [...]} or {"not_run": REASON}.
A third, `accessibility`, is run by the system's Python (which has pyatspi)
for `/accessibility`: it prints the desktop's tree as OSWorld's XML.

A module desktop-env imports but this environment does not carry (torch,
easyocr, playwright, OpenCV, ...) is a stand-in that raises `Withheld` when
used, so the metric families that need it only for some functions still
load; a metric that reaches one is not run, with the module named.
"""

import argparse
import ast
import importlib.abc
import importlib.machinery
import importlib.util
import json
import logging
import os
import re
import subprocess
import sys
import threading
import types
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# Getters answered here, through OSWorld's own getter functions. Every other
# one reads what this host does not serve (Chrome's DevTools port, VLC's
# web interface, a VM's window manager, Google Drive) and is not run.
SERVED_GETTERS = {
    "vm_file",
    "cloud_file",  # only a file already placed in the cache (a local or file: source)
    "cache_file",
    "content_from_vm_file",
    "vm_command_line",
    "vm_command_error",
    "rule",
    "rule_relativeTime",
    "time_diff_range",
    "list_directory",
    "vm_screen_size",
    "accessibility_tree",  # the desktop's AT-SPI tree in OSWorld's XML, written here
    # Chrome's profile files (Preferences, Bookmarks, History, Cookies), read through
    # `/execute` and `/file`; an episode's Chrome is Debian's Chromium with its profile
    # where Google Chrome keeps one.
    "default_search_engine",
    "cookie_data",
    "history",
    "enabled_experiments",
    "profile_name",
    "chrome_language",
    "chrome_font_size",
    "bookmarks",
    "enable_do_not_track",
    "enable_enhanced_safety_browsing",
    "enable_safe_browsing",
    "new_startup_page",
    "data_delete_automacally",
    "find_unpacked_extension_path",
    "find_installed_extension_name",
}

VM_HOME = "/home/user"
# The Python with pyatspi (Debian's python3-pyatspi) that reads the accessibility tree.
SYSTEM_PYTHON = "/usr/bin/python3"


class Withheld(Exception):
    """A module desktop-env imports that this environment does not carry."""


class NotRun(Exception):
    pass


def _withheld_stand_in(name):
    class StandIn(types.ModuleType):
        __path__ = []

        def __getattr__(self, attribute):
            if attribute.startswith("__"):
                raise AttributeError(attribute)
            return _WithheldThing(f"{name}.{attribute}")

    return StandIn(name)


class _WithheldThing:
    def __init__(self, name):
        self._name = name

    def _refuse(self, *args, **kwargs):
        raise Withheld(f"it needs `{self._name.split('.')[0]}`, which glovebox's evaluator does not carry")

    __call__ = _refuse

    def __getattr__(self, attribute):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return _WithheldThing(f"{self._name}.{attribute}")

    def __mro_entries__(self, bases):
        return (object,)


# What desktop-env declares as its dependencies and this environment leaves
# out (several GB: models, OCR, browsers' drivers, cloud SDKs), by import name.
WITHHELD = {
    "torch", "transformers", "easyocr", "cv2", "skimage", "librosa", "acoustid",
    "fastdtw", "imagehash", "fitz", "borb", "PyPDF2", "mutagen", "playwright",
    "pydrive", "pyautogui", "pynput", "pygame", "matplotlib", "fabric", "flask",
    "autogen", "openai", "dashscope", "google", "groq",
    "boto3", "botocore", "azure", "docker", "loguru", "wandb", "gdown",
    "tiktoken", "anthropic", "alibabacloud_ecs20140526", "alibabacloud_tea_openapi",
    "alibabacloud_tea_util", "func_timeout", "wrapt_timeout_decorator",
    "pygetwindow", "backoff",
}


class _WithheldFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on the path: answers only for a withheld module nothing else found."""

    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] not in WITHHELD:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return _withheld_stand_in(spec.name)

    def exec_module(self, module):
        pass


def _package_dir():
    loaded = sys.modules.get("desktop_env")
    if loaded is not None and getattr(loaded, "__path__", None):
        return list(loaded.__path__)[0]
    spec = importlib.util.find_spec("desktop_env")
    if spec is None or not spec.submodule_search_locations:
        raise NotRun("desktop-env is not installed in this Python")
    return list(spec.submodule_search_locations)[0]


def _exports(init_path):
    """name -> submodule, from a package's `from .x import (...)` lines."""
    tree = ast.parse(open(init_path, encoding="utf-8").read())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            for alias in node.names:
                names[alias.asname or alias.name] = node.module
    return names


def _lazy_package(fullname, directory, exports, served=None):
    """The package without its `__init__`, which imports every family (and so
    every heavy dependency) at once: a name is imported from its own module
    when `DesktopEnv` asks for it."""

    class Lazy(types.ModuleType):
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            if served is not None and name.startswith("get_") and name[4:] not in served:
                raise NotRun(
                    f"the getter `{name[4:]}` is not served here: it reads what a VM's "
                    "controller serves and glovebox does not (served: "
                    + ", ".join(sorted(served))
                    + ")"
                )
            if name == "infeasible":
                raise NotRun(
                    "an infeasible task is scored by the agent saying FAIL, which "
                    "glovebox's loop has no word for"
                )
            module_name = exports.get(name)
            if module_name is None:
                raise NotRun(f"`{name}` is not in desktop-env's {fullname.rsplit('.', 1)[-1]}")
            module = importlib.import_module(f"{fullname}.{module_name}")
            value = getattr(module, name)
            setattr(self, name, value)
            return value

    package = Lazy(fullname)
    package.__path__ = [directory]
    sys.modules[fullname] = package
    return package


def load_desktop_env():
    root = _package_dir()
    sys.meta_path.append(_WithheldFinder())
    evaluators = os.path.join(root, "evaluators")
    for fullname, directory in [
        ("desktop_env", root),
        ("desktop_env.evaluators", evaluators),
    ]:
        package = types.ModuleType(fullname)
        package.__path__ = [directory]
        sys.modules[fullname] = package
    metrics_dir = os.path.join(evaluators, "metrics")
    getters_dir = os.path.join(evaluators, "getters")
    metrics = _lazy_package(
        "desktop_env.evaluators.metrics",
        metrics_dir,
        _exports(os.path.join(metrics_dir, "__init__.py")),
    )
    getters = _lazy_package(
        "desktop_env.evaluators.getters",
        getters_dir,
        _exports(os.path.join(getters_dir, "__init__.py")),
        served=SERVED_GETTERS,
    )
    sys.modules["desktop_env.evaluators"].metrics = metrics
    sys.modules["desktop_env.evaluators"].getters = getters
    from desktop_env.desktop_env import DesktopEnv  # noqa: E402  (after the stand-ins)
    from desktop_env.controllers.python import PythonController  # noqa: E402

    return DesktopEnv, PythonController


def _getter_configs(evaluator, key):
    value = evaluator.get(key)
    if not value:
        return []
    return [v for v in (value if isinstance(value, list) else [value]) if v]


def check_sources(evaluator, task_dir):
    """A getter that would reach the network is not run; a local source must exist."""
    for config in _getter_configs(evaluator, "result") + _getter_configs(evaluator, "expected"):
        if config.get("type") != "cloud_file":
            continue
        paths = config["path"] if config.get("multi") else [config["path"]]
        for path in paths:
            local_source(path, task_dir)


def local_source(path, task_dir):
    parsed = urllib.parse.urlparse(path)
    if parsed.scheme in ("http", "https", "ftp"):
        raise NotRun(f"`{path}` needs the network, which an episode does not have here")
    local = urllib.parse.unquote(parsed.path) if parsed.scheme == "file" else path
    if parsed.scheme not in ("", "file"):
        raise NotRun(f"`{path}`: only local paths and file: sources are read")
    local = os.path.join(task_dir, local)
    if not os.path.isfile(local):
        raise NotRun(f"`{path}` is not a file here")
    return local


# OSWorld's XML for a desktop's accessibility tree (what its `check_accessibility_tree`
# metric reads): an element per accessible, named by its role with `-` for spaces;
# `name`; each state as st:NAME="true"; each object attribute as attr:NAME; where it
# shows, cp:screencoord and cp:size as "(x, y)"; its text as the element's text; its
# value as val:value, val:min, val:max, val:step; each action's description and key
# binding as act:NAME_desc and act:NAME_kb; image="true" and selection="true" where
# it has those interfaces. The namespaces are OSWorld's Ubuntu ones.
A11Y_NAMESPACES = {
    prefix: f"https://accessibility.ubuntu.example.org/ns/{path}"
    for prefix, path in [
        ("st", "state"), ("attr", "attributes"), ("cp", "component"), ("doc", "document"),
        ("docattr", "document/attributes"), ("txt", "text"), ("val", "value"), ("act", "action"),
    ]
}
A11Y_MAX_DEPTH = 50
A11Y_MAX_CHILDREN = 1024
# A container with more children than this (Calc's sheet: 2^30 cells) is read by the
# cells that show, found from where it is on the screen, never child by child.
A11Y_HUGE = 5000
A11Y_MAX_SHOWN = 200


def accessibility_xml():
    import pyatspi  # the system's Python: `accessibility` mode only
    import xml.etree.ElementTree as ET

    for prefix, uri in A11Y_NAMESPACES.items():
        ET.register_namespace(prefix, uri)
    ns = {k: "{" + v + "}" for k, v in A11Y_NAMESPACES.items()}
    name_ok = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]*$")

    def attempt(call, default=None):
        try:
            return call()
        except Exception:
            return default

    def element(node, depth):
        role = (attempt(node.getRoleName, "") or "unknown").strip().replace(" ", "-") or "unknown"
        if not name_ok.match(role):
            role = "unknown"
        attributes = {"name": attempt(lambda: node.name, "") or ""}
        states = [s.value_nick for s in attempt(lambda: node.getState().getStates(), [])]
        for state in states:
            if name_ok.match(state or ""):
                attributes[ns["st"] + state] = "true"
        for key, value in (attempt(node.get_attributes, {}) or {}).items():
            if name_ok.match(key):
                attributes[ns["attr"] + key] = str(value)
        if "visible" in states and "showing" in states:
            extents = attempt(lambda: node.queryComponent().getExtents(pyatspi.XY_SCREEN))
            if extents is not None:
                attributes[ns["cp"] + "screencoord"] = f"({extents.x}, {extents.y})"
                attributes[ns["cp"] + "size"] = f"({extents.width}, {extents.height})"
        text = ""
        # A password field's text is a secret: it never leaves the application.
        if role != "password-text":
            text_interface = attempt(node.queryText)
            if text_interface is not None:
                text = attempt(lambda: text_interface.getText(0, text_interface.characterCount), "") or ""
                text = text.replace("\ufffc", "").replace("\ufffd", "")
        if attempt(node.queryImage) is not None:
            attributes["image"] = "true"
        if attempt(node.querySelection) is not None:
            attributes["selection"] = "true"
        value = attempt(node.queryValue)
        if value is not None:
            for key, read in [("value", "currentValue"), ("min", "minimumValue"),
                              ("max", "maximumValue"), ("step", "minimumIncrement")]:
                got = attempt(lambda: getattr(value, read))
                if got is not None:
                    attributes[ns["val"] + key] = str(got)
        actions = attempt(node.queryAction)
        if actions is not None:
            for i in range(attempt(lambda: actions.nActions, 0)):
                action = (attempt(lambda: actions.getName(i), "") or "").replace(" ", "-")
                if name_ok.match(action):
                    attributes[ns["act"] + action + "_desc"] = attempt(lambda: actions.getDescription(i), "") or ""
                    attributes[ns["act"] + action + "_kb"] = attempt(lambda: actions.getKeyBinding(i), "") or ""
        made = ET.Element(role, attributes)
        if text:
            made.text = text
        if depth < A11Y_MAX_DEPTH:
            for child in children(node):
                made.append(element(child, depth + 1))
        return made

    def children(node):
        count = attempt(lambda: node.childCount, 0)
        if count <= A11Y_HUGE:
            for i in range(min(count, A11Y_MAX_CHILDREN)):
                child = attempt(lambda: node.getChildAtIndex(i))
                if child is not None:
                    yield child
            return
        # The cells that show: from the one at the container's top left, along its rows
        # and columns while they show.
        table = attempt(node.queryTable)
        extents = attempt(lambda: node.queryComponent().getExtents(pyatspi.XY_SCREEN))
        if table is None or extents is None:
            return
        first = attempt(lambda: node.queryComponent().getAccessibleAtPoint(
            extents.x + 2, extents.y + 2, pyatspi.XY_SCREEN))
        index = attempt(lambda: first.getIndexInParent()) if first is not None else None
        if index is None:
            return
        row0, column0 = table.getRowAtIndex(index), table.getColumnAtIndex(index)

        def showing(row, column):
            cell = attempt(lambda: table.getAccessibleAt(row, column))
            shown = cell is not None and attempt(
                lambda: cell.getState().contains(pyatspi.STATE_SHOWING), False)
            return cell if shown else None

        shown = 0
        row = row0
        while row < table.nRows and shown < A11Y_MAX_SHOWN * 50:
            column, any_in_row = column0, False
            while column < table.nColumns and column - column0 < A11Y_MAX_SHOWN:
                cell = showing(row, column)
                if cell is None:
                    break
                any_in_row = True
                shown += 1
                yield cell
                column += 1
            if not any_in_row or row - row0 >= A11Y_MAX_SHOWN:
                return
            row += 1

    desktop = pyatspi.Registry.getDesktop(0)
    return ET.tostring(element(desktop, 0), encoding="unicode")


class Vm:
    """The VM's side of OSWorld's controller wire, for this episode's home and display."""

    def __init__(self, home):
        self.home = home

    def here(self, path):
        if path == VM_HOME or path.startswith(VM_HOME + "/"):
            return self.home + path[len(VM_HOME):]
        return path

    def execute(self, command, shell):
        if isinstance(command, str):
            command = self.here_in_text(command)
        else:
            command = [self.here_in_text(part) for part in command]
            # The VM's `python` is its Python 3.
            if command and command[0] == "python":
                command[0] = "python3"
        env = dict(os.environ, HOME=self.home)
        try:
            ran = subprocess.run(
                command, shell=shell, capture_output=True, text=True, timeout=60, env=env, cwd=self.home
            )
        except (OSError, subprocess.TimeoutExpired) as e:
            return {"status": "error", "output": "", "error": str(e), "returncode": -1}
        return {"status": "success", "output": ran.stdout, "error": ran.stderr, "returncode": ran.returncode}

    def here_in_text(self, text):
        # Where the VM's home is a whole path component, not in /home/username.
        return re.sub(re.escape(VM_HOME) + r"(?![\w.-])", lambda _: self.home, text)

    def accessibility(self):
        """The desktop's tree, read by the system's Python (pyatspi) in this display's session."""
        try:
            ran = subprocess.run(
                [SYSTEM_PYTHON, os.path.abspath(__file__), "accessibility", "-"],
                capture_output=True, text=True, timeout=120,
            )
        except (OSError, subprocess.TimeoutExpired):
            return None
        return ran.stdout if ran.returncode == 0 and ran.stdout.startswith("<") else None

    def tree(self, path):
        path = self.here(path)
        if not os.path.isdir(path):
            return None

        def walk(p):
            node = {"name": os.path.basename(p), "type": "directory", "children": []}
            for entry in sorted(os.listdir(p)):
                full = os.path.join(p, entry)
                if os.path.isdir(full) and not os.path.islink(full):
                    node["children"].append(walk(full))
                else:
                    node["children"].append({"name": entry, "type": "file"})
            return node

        return walk(path)


def peer_uid(client_port):
    """The user owning the loopback TCP socket whose local port is `client_port`, from
    /proc/net/tcp; None when it is not there."""
    want = f"0100007F:{client_port:04X}"
    with open("/proc/net/tcp", encoding="ascii") as table:
        next(table)
        for line in table:
            fields = line.split()
            if len(fields) > 7 and fields[1] == want:
                return int(fields[7])
    return None


# Most bytes a request to the wire may carry: a command or a path.
MAX_REQUEST_BYTES = 1 << 20


def serve(vm, screen):
    """The wire on loopback, answering this user's processes alone: it runs commands, and
    another local user could otherwise reach it while the evaluator runs."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def _ours(self):
            if peer_uid(self.client_address[1]) == os.getuid():
                return True
            self._send(403, {"error": "not this user's"})
            return False

        def _send(self, status, body, kind="application/json"):
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self):
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(min(max(length, 0), MAX_REQUEST_BYTES))

        def do_GET(self):
            if not self._ours():
                return
            if self.path == "/accessibility":
                tree = vm.accessibility()
                self._send(200 if tree else 500, {"AT": tree})
            else:
                self._send(404, {"error": f"{self.path} is not served"})

        def do_POST(self):
            if not self._ours():
                return
            body = self._body()
            if self.path == "/execute":
                request = json.loads(body or b"{}")
                self._send(200, vm.execute(request.get("command", []), bool(request.get("shell"))))
            elif self.path == "/file":
                form = urllib.parse.parse_qs(body.decode())
                path = vm.here(form.get("file_path", [""])[0])
                if os.path.isfile(path):
                    with open(path, "rb") as f:
                        self._send(200, f.read(), "application/octet-stream")
                else:
                    self._send(404, {"error": "File not found"})
            elif self.path == "/list_directory":
                tree = vm.tree(json.loads(body or b"{}").get("path", ""))
                self._send(200 if tree else 404, {"directory_tree": tree})
            elif self.path == "/screen_size":
                self._send(200, {"width": screen[0], "height": screen[1]})
            else:
                self._send(404, {"error": f"{self.path} is not served"})

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class _NoSetup:
    """The postconfig ran before this script, in the episode's desktop."""

    def setup(self, config, use_proxy=False):
        return True


def evaluate(task, task_dir, home, cache, screen, log):
    DesktopEnv, PythonController = load_desktop_env()
    evaluator = task["evaluator"]
    check_sources(evaluator, task_dir)
    os.makedirs(cache, exist_ok=True)
    # A local expected file is placed where `get_cloud_file` looks first.
    for config in _getter_configs(evaluator, "expected") + _getter_configs(evaluator, "result"):
        if config.get("type") == "cloud_file":
            paths = config["path"] if config.get("multi") else [config["path"]]
            dests = config["dest"] if config.get("multi") else [config["dest"]]
            for path, dest in zip(paths, dests):
                with open(local_source(path, task_dir), "rb") as src, open(os.path.join(cache, dest), "wb") as dst:
                    dst.write(src.read())
    server = serve(Vm(home), screen)
    env = object.__new__(DesktopEnv)
    env.vm_ip, env.server_port = "127.0.0.1", server.server_address[1]
    env.chromium_port, env.vlc_port = 0, 0
    env.cache_dir = cache
    env.controller = PythonController(vm_ip=env.vm_ip, server_port=env.server_port)
    # The VM's prefix imports pyautogui for input; glovebox's agent gives input through its
    # gate, so commands run as written. A missing file is answered at once, not retried.
    env.controller.pkgs_prefix = "{command}"
    env.controller.retry_times, env.controller.retry_interval = 1, 0
    env.setup_controller = _NoSetup()
    env.enable_proxy = False
    env.action_history = []
    env.is_environment_used = False
    DesktopEnv._set_evaluator_info(env, task)
    score = DesktopEnv.evaluate(env)
    server.shutdown()
    return float(score)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["check", "evaluate", "accessibility"])
    parser.add_argument("task")
    parser.add_argument("--home")
    parser.add_argument("--cache")
    parser.add_argument("--screen", default="1280x800")
    args = parser.parse_args()
    if args.mode == "accessibility":
        print(accessibility_xml())
        return
    log_lines = []

    class Keep(logging.Handler):
        def emit(self, record):
            # The AWS provider's proxy pool complains at import about a file only a VM host has.
            if record.name.startswith("desktopenv.providers"):
                return
            if len(log_lines) < 200:
                log_lines.append(self.format(record)[:500])

    logging.basicConfig(level=logging.INFO, handlers=[Keep()])
    # The metrics print as they go; stdout is this script's answer.
    answer_to = sys.stdout
    sys.stdout = sys.stderr
    try:
        task = json.load(open(args.task, encoding="utf-8"))
        task_dir = os.path.dirname(os.path.abspath(args.task))
        if args.mode == "check":
            DesktopEnv, _ = load_desktop_env()
            check_sources(task["evaluator"], task_dir)
            env = object.__new__(DesktopEnv)
            DesktopEnv._set_evaluator_info(env, task)
            answer = {"supported": True}
        else:
            width, height = (int(v) for v in args.screen.split("x"))
            score = evaluate(task, task_dir, args.home, args.cache, (width, height), log_lines)
            answer = {"score": score, "log": log_lines[-40:]}
    except NotRun as e:
        answer = {"not_run": str(e)}
    except Withheld as e:
        answer = {"not_run": f"the metric cannot run here: {e}"}
    except Exception as e:  # the evaluator itself broke: the episode cannot be judged
        answer = {"error": f"{type(e).__name__}: {e}", "log": log_lines[-40:]}
    print(json.dumps(answer), file=answer_to)


if __name__ == "__main__":
    main()
