#!/usr/bin/python3
"""Regenerates the pinned JSON schemas in this folder (see SOURCES.md).

Needs its two inputs on disk; check.py never runs this and needs no network.

    /usr/bin/python3 deploy/kubernetes/schemas/pin.py \
        --k8s-wheel kubernetes_validate-1.37.0-py3-none-any.whl --k8s-version v1.33.0 \
        --agent-sandbox-git /path/to/agent-sandbox/.git --agent-sandbox-ref v0.5.6

Kubernetes' own kinds come from the "local-strict" schemas inside the
kubernetes-validate wheel (PyPI): a kind file plus a shared _definitions.json.
Agent-sandbox's kinds come from the openAPIV3Schema of its CRDs. Each output
file is self-contained: the definitions it needs are copied under "$defs" and
every "$ref" points at "#/$defs/...", so nothing is fetched when validating.
"""

import argparse
import copy
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
DRAFT = "https://json-schema.org/draft/2020-12/schema"
OBJECT_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

# Kubernetes kinds: output file -> kind file in the wheel.
K8S_KINDS = {
    "job-batch-v1.json": "job-batch-v1.json",
    "configmap-v1.json": "configmap-v1.json",
    "persistentvolumeclaim-v1.json": "persistentvolumeclaim-v1.json",
    "namespace-v1.json": "namespace-v1.json",
}

# agent-sandbox kinds: output file -> (CRD file in the repository, version).
SANDBOX_KINDS = {
    "sandbox-agents-v1beta1.json": ("k8s/crds/agents.x-k8s.io_sandboxes.yaml", "v1beta1"),
    "sandboxtemplate-extensions-v1beta1.json": ("k8s/crds/extensions.agents.x-k8s.io_sandboxtemplates.yaml", "v1beta1"),
    "sandboxclaim-extensions-v1beta1.json": ("k8s/crds/extensions.agents.x-k8s.io_sandboxclaims.yaml", "v1beta1"),
    "sandboxwarmpool-extensions-v1beta1.json": ("k8s/crds/extensions.agents.x-k8s.io_sandboxwarmpools.yaml", "v1beta1"),
}

REF = re.compile(r"^[^#]*#/\$defs/(.+)$")


def def_name(ref):
    match = REF.match(ref)
    if not match:
        sys.exit(f"unexpected $ref {ref!r}")
    return match.group(1)


def rewrite_refs(node, wanted):
    """Points every $ref at "#/$defs/NAME" and collects the NAMEs it uses."""
    if isinstance(node, dict):
        out = {}
        for key, value in node.items():
            if key == "$ref":
                name = def_name(value)
                wanted.append(name)
                out[key] = f"#/$defs/{name}"
            else:
                out[key] = rewrite_refs(value, wanted)
        return out
    if isinstance(node, list):
        return [rewrite_refs(item, wanted) for item in node]
    return node


def bundle(root, definitions):
    """root with its refs rewritten and the definitions it reaches under $defs."""
    wanted = []
    root = rewrite_refs(root, wanted)
    defs = {}
    while wanted:
        name = wanted.pop()
        if name in defs:
            continue
        if name not in definitions:
            sys.exit(f"definition {name} is missing")
        defs[name] = rewrite_refs(definitions[name], wanted)
    if defs:
        root["$defs"] = dict(sorted(defs.items()))
    return root


def strict(node):
    """additionalProperties: false on every object schema that lists properties,
    sets no additionalProperties and does not preserve unknown fields."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    strict(sub)
            elif key in ("enum", "default", "example", "x-kubernetes-validations", "required"):
                continue
            else:
                strict(value)
        if (
            "properties" in node
            and "additionalProperties" not in node
            and not node.get("x-kubernetes-preserve-unknown-fields")
        ):
            node["additionalProperties"] = False
    elif isinstance(node, list):
        for item in node:
            strict(item)
    return node


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def pin_kubernetes(wheel, version):
    folder = f"kubernetes_validate/kubernetes-json-schema/{version}-local-strict"
    with zipfile.ZipFile(wheel) as zf:
        definitions = json.loads(zf.read(f"{folder}/_definitions.json"))["$defs"]
        for out_name, kind_file in K8S_KINDS.items():
            raw = zf.read(f"{folder}/{kind_file}")
            root = json.loads(raw)
            root.pop("$id", None)
            root.pop("$schema", None)
            schema = {
                "$schema": DRAFT,
                "$comment": f"Kubernetes {version} {kind_file}, from {Path(wheel).name} "
                f"({folder}), sha256 of that file {sha256(raw)}; refs bundled by pin.py.",
            }
            schema.update(bundle(root, definitions))
            write(out_name, schema)


def git_show(git_dir, ref, path):
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"{ref}:{path}"], check=True, capture_output=True
    ).stdout


def pin_agent_sandbox(git_dir, ref, definitions):
    commit = subprocess.run(
        ["git", f"--git-dir={git_dir}", "rev-parse", f"{ref}^{{commit}}"], check=True, capture_output=True, text=True
    ).stdout.strip()
    for out_name, (path, version) in SANDBOX_KINDS.items():
        raw = git_show(git_dir, ref, path)
        crd = yaml.safe_load(raw)
        group = crd["spec"]["group"]
        kind = crd["spec"]["names"]["kind"]
        (entry,) = [v for v in crd["spec"]["versions"] if v["name"] == version]
        root = strict(copy.deepcopy(entry["schema"]["openAPIV3Schema"]))
        props = root.setdefault("properties", {})
        props["apiVersion"] = {"type": "string", "enum": [f"{group}/{version}"]}
        props["kind"] = {"type": "string", "enum": [kind]}
        props["metadata"] = {"$ref": f"#/$defs/{OBJECT_META}"}
        root["required"] = sorted(set(root.get("required", [])) | {"apiVersion", "kind", "metadata"})
        root["additionalProperties"] = False
        root["x-kubernetes-group-version-kind"] = [{"group": group, "kind": kind, "version": version}]
        schema = {
            "$schema": DRAFT,
            "$comment": f"agent-sandbox {ref} ({commit}) {path}, version {version} openAPIV3Schema, "
            f"sha256 of that file {sha256(raw)}; converted by pin.py (strict objects, "
            f"apiVersion/kind enums, Kubernetes ObjectMeta as metadata).",
        }
        schema.update(bundle(root, definitions))
        write(out_name, schema)


def write(name, schema):
    path = HERE / name
    path.write_text(json.dumps(schema, indent=1, sort_keys=False) + "\n")
    print(f"wrote {path.relative_to(HERE.parent.parent.parent)} ({path.stat().st_size} bytes)")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k8s-wheel", required=True, type=Path)
    parser.add_argument("--k8s-version", default="v1.33.0")
    parser.add_argument("--agent-sandbox-git", required=True, type=Path)
    parser.add_argument("--agent-sandbox-ref", default="v0.5.6")
    args = parser.parse_args()
    print(f"{args.k8s_wheel.name} sha256 {sha256(args.k8s_wheel.read_bytes())}")
    pin_kubernetes(args.k8s_wheel, args.k8s_version)
    folder = f"kubernetes_validate/kubernetes-json-schema/{args.k8s_version}-local-strict"
    with zipfile.ZipFile(args.k8s_wheel) as zf:
        definitions = json.loads(zf.read(f"{folder}/_definitions.json"))["$defs"]
    pin_agent_sandbox(args.agent_sandbox_git, args.agent_sandbox_ref, definitions)


if __name__ == "__main__":
    main()
