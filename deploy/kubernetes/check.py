#!/usr/bin/python3
"""Offline check of glovebox's Kubernetes manifests.

    /usr/bin/python3 deploy/kubernetes/check.py [FILE.yaml ...]

Without arguments it checks every *.yaml under deploy/kubernetes. Each
document is validated against the pinned JSON schema of its apiVersion and
kind (schemas/, see schemas/SOURCES.md); a kind with no pinned schema is an
error. Then the references between documents are checked: namespaces, the
ConfigMaps and claims a pod mounts, volume mounts, $(VAR) in command/args,
the warm pool's template and the claim's warm pool. References resolve
against the checked files plus the manifests of deploy/kubernetes. Then
what the schemas let through and the API server refuses (semantic.py:
enumerations, rules between fields, quantities), and Pod Security's
"restricted" profile (restricted.py) for every pod and namespace.

Prints `ok FILE KIND/NAME` per good document and `error FILE KIND/NAME: ...`
per fault; exits 1 if there was any. Needs python3-yaml and
python3-jsonschema (Debian), no network.
"""

import json
import re
import sys
from pathlib import Path

import jsonschema
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import restricted  # noqa: E402  (beside this file)
import semantic  # noqa: E402

HERE = Path(__file__).resolve().parent
SCHEMAS = HERE / "schemas"
REPO = HERE.parent.parent

# Objects these manifests use but do not define: (kind, namespace, name) -> how they are made.
EXTERNAL = {
    ("ConfigMap", "glovebox-episodes", "glovebox-episodes"): (
        "kubectl -n glovebox-episodes create configmap glovebox-episodes --from-file=examples/episodes/"
    ),
    ("ConfigMap", "glovebox-episodes", "glovebox-osworld"): (
        "kubectl -n glovebox-episodes create configmap glovebox-osworld --from-file=examples/osworld/"
    ),
}
# The directory each external ConfigMap is made from, to count its spec files.
CONFIGMAP_SOURCES = {
    ("glovebox-episodes", "glovebox-episodes"): REPO / "examples" / "episodes",
    ("glovebox-episodes", "glovebox-osworld"): REPO / "examples" / "osworld",
}

CLUSTER_SCOPED = {"Namespace"}
VAR_REF = re.compile(r"(?<!\$)\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")


class Doc:
    def __init__(self, path, index, body):
        self.path = path
        self.index = index
        self.body = body

    @property
    def kind(self):
        return self.body.get("kind") if isinstance(self.body, dict) else None

    @property
    def meta(self):
        meta = self.body.get("metadata") if isinstance(self.body, dict) else None
        return meta if isinstance(meta, dict) else {}

    @property
    def name(self):
        return self.meta.get("name")

    @property
    def namespace(self):
        return self.meta.get("namespace")

    def label(self):
        return f"{self.kind or '?'}/{self.name or '?'}"


def shown(path):
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def load_schemas():
    """(apiVersion, kind) -> validator, from each schema's x-kubernetes-group-version-kind."""
    table = {}
    for path in sorted(SCHEMAS.glob("*.json")):
        schema = json.loads(path.read_text())
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
        cls.check_schema(schema)
        for gvk in schema.get("x-kubernetes-group-version-kind", []):
            api = f"{gvk['group']}/{gvk['version']}" if gvk["group"] else gvk["version"]
            key = (api, gvk["kind"])
            if key in table:
                sys.exit(f"two schemas for {key}: {table[key][0]} and {path.name}")
            table[key] = (path.name, cls(schema))
    return table


def load_docs(path, errors):
    try:
        bodies = list(yaml.safe_load_all(path.read_text()))
    except (OSError, yaml.YAMLError) as e:
        errors.append((path, None, "cannot read: " + " ".join(str(e).split())))
        return []
    return [Doc(path, i, body) for i, body in enumerate(bodies) if body is not None]


def where(error):
    parts = [str(p) for p in error.absolute_path]
    return ".".join(parts) if parts else "(top level)"


def schema_errors(doc, schemas):
    body = doc.body
    if not isinstance(body, dict):
        return ["the document is not a mapping"]
    key = (body.get("apiVersion"), body.get("kind"))
    if key not in schemas:
        return [f"no pinned schema for apiVersion {key[0]!r} kind {key[1]!r}"]
    _, validator = schemas[key]
    out = []
    for error in sorted(validator.iter_errors(body), key=lambda e: list(map(str, e.absolute_path))):
        if error.context:
            error = jsonschema.exceptions.best_match(error.context)
        out.append(f"{where(error)}: {error.message}")
    return out


def pod_spec(doc):
    spec = doc.body.get("spec") or {}
    if doc.kind == "Job":
        return ((spec.get("template") or {}).get("spec")) or {}
    if doc.kind in ("SandboxTemplate", "Sandbox"):
        return ((spec.get("podTemplate") or {}).get("spec")) or {}
    return None


def reference_errors(doc, known):
    """Faults in what this document refers to; known maps (kind, namespace, name) -> Doc."""
    out = []
    ns = doc.namespace
    if doc.kind in CLUSTER_SCOPED:
        if ns:
            out.append(f"metadata.namespace: a {doc.kind} is cluster-scoped")
    elif not ns:
        out.append("metadata.namespace: not set (the manifests name their namespace)")
    elif ("Namespace", None, ns) not in known:
        out.append(f"metadata.namespace: no Namespace {ns!r} among the manifests")

    def need(kind, name, field):
        if not name:
            return
        key = (kind, ns, name)
        if key not in known and key not in EXTERNAL:
            out.append(f"{field}: no {kind} {name!r} in namespace {ns!r} among the manifests")

    spec = doc.body.get("spec") or {}
    pod = pod_spec(doc)
    if pod is not None:
        base = "spec.template.spec" if doc.kind == "Job" else "spec.podTemplate.spec"
        volumes = pod.get("volumes") or []
        names = [v.get("name") for v in volumes]
        for i, vol in enumerate(volumes):
            if names.count(vol.get("name")) > 1:
                out.append(f"{base}.volumes.{i}.name: {vol.get('name')!r} is used twice")
            if "configMap" in vol:
                need("ConfigMap", (vol["configMap"] or {}).get("name"), f"{base}.volumes.{i}.configMap.name")
            if "persistentVolumeClaim" in vol:
                claim = (vol["persistentVolumeClaim"] or {}).get("claimName")
                need("PersistentVolumeClaim", claim, f"{base}.volumes.{i}.persistentVolumeClaim.claimName")
        for group in ("initContainers", "containers"):
            for c_i, container in enumerate(pod.get(group) or []):
                at = f"{base}.{group}.{c_i}"
                for m_i, mount in enumerate(container.get("volumeMounts") or []):
                    if mount.get("name") not in names:
                        out.append(f"{at}.volumeMounts.{m_i}.name: no volume {mount.get('name')!r}")
                env = {e.get("name") for e in container.get("env") or []}
                for field in ("command", "args"):
                    for a_i, arg in enumerate(container.get(field) or []):
                        for var in VAR_REF.findall(str(arg)):
                            if var not in env:
                                out.append(f"{at}.{field}.{a_i}: $({var}) is not in the container's env")

    if pod is not None:
        out += semantic.pod_faults(pod, base)
        template = (spec.get("template") if doc.kind == "Job" else spec.get("podTemplate")) or {}
        out += restricted.faults(pod, base, template.get("metadata"))
    if doc.kind == "Namespace":
        out += restricted.namespace_faults(doc.body)
    elif doc.kind == "PersistentVolumeClaim":
        out += semantic.claim_faults(spec)

    if doc.kind == "Job":
        out += semantic.job_faults(spec, pod or {})
        indexed = spec.get("completionMode") == "Indexed"
        for field in ("backoffLimitPerIndex", "maxFailedIndexes"):
            if field in spec and not indexed:
                out.append(f"spec.{field}: needs completionMode: Indexed")
        if "podFailurePolicy" in spec and (pod or {}).get("restartPolicy") != "Never":
            out.append("spec.template.spec.restartPolicy: podFailurePolicy needs Never")
        completions = spec.get("completions")
        if isinstance(completions, int) and isinstance(spec.get("maxFailedIndexes"), int):
            if spec["maxFailedIndexes"] > completions:
                out.append("spec.maxFailedIndexes: more than completions")
        for vol in (pod or {}).get("volumes") or []:
            source = CONFIGMAP_SOURCES.get((ns, (vol.get("configMap") or {}).get("name")))
            if indexed and source is not None and isinstance(completions, int):
                count = len([p for p in source.iterdir() if p.is_file() and p.suffix in (".toml", ".json")])
                if count != completions:
                    out.append(
                        f"spec.completions: {completions}, but {shown(source)} has {count} spec files "
                        f"(the ConfigMap {vol['configMap']['name']!r} is made from it)"
                    )
    elif doc.kind == "SandboxWarmPool":
        need("SandboxTemplate", (spec.get("sandboxTemplateRef") or {}).get("name"), "spec.sandboxTemplateRef.name")
    elif doc.kind == "SandboxClaim":
        need("SandboxWarmPool", (spec.get("warmPoolRef") or {}).get("name"), "spec.warmPoolRef.name")
    return out


def main(argv):
    schemas = load_schemas()
    errors = []  # (path, doc or None, message)
    context = [d for p in sorted(HERE.rglob("*.yaml")) for d in load_docs(p, errors)]
    if argv:
        errors = []
        checked = [d for p in map(Path, argv) for d in load_docs(p, errors)]
    else:
        checked = context

    known = {}
    for doc in context:
        if isinstance(doc.body, dict):
            known.setdefault((doc.kind, None if doc.kind in CLUSTER_SCOPED else doc.namespace, doc.name), doc)
    seen = {}
    for doc in checked:
        if isinstance(doc.body, dict):
            key = (doc.kind, None if doc.kind in CLUSTER_SCOPED else doc.namespace, doc.name)
            if key in seen:
                errors.append((doc.path, doc, f"defined twice (also in {shown(seen[key].path)})"))
            seen[key] = doc
            known[key] = doc

    for path, doc, message in errors:
        if doc is None:
            print(f"error {shown(path)}: {message}")
    failed = bool(errors)
    for doc in checked:
        problems = [m for _, d, m in errors if d is doc]
        problems += schema_errors(doc, schemas)
        if isinstance(doc.body, dict):
            problems += reference_errors(doc, known)
        if problems:
            failed = True
            for message in problems:
                print(f"error {shown(doc.path)} {doc.label()}: {message}")
        else:
            print(f"ok {shown(doc.path)} {doc.label()}")
    if not checked and not errors:
        print("error: no manifest found")
        failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
