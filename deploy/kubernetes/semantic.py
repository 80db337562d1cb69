"""What the API server refuses that the pinned JSON schemas let through.

Kubernetes' OpenAPI documents give most enumerations as plain strings and
say nothing of rules between fields; the API server's validation
(pkg/apis/batch/validation, pkg/apis/core/validation) holds them. check.py
applies the ones these manifests can meet, each fault naming its field:

- enumerations: a Job's podFailurePolicy actions, operators and condition
  statuses, completionMode, podReplacementPolicy; a pod's restartPolicy,
  dnsPolicy, fsGroupChangePolicy, seccomp and AppArmor profile types; a
  container's imagePullPolicy, terminationMessagePolicy, port protocols;
  emptyDir's medium; a claim's access and volume modes;
- rules between fields: FailIndex needs backoffLimitPerIndex, an exit-code
  rule's values are unique, ascending and (for In) never 0, its container
  is one of the pod's, a Job's restartPolicy is Never or OnFailure;
- quantities (cpu, memory, ephemeral-storage, sizeLimit, storage) that
  parse, and no limit below its request.
"""

import re

JOB_ENUMS = {
    "completionMode": {"NonIndexed", "Indexed"},
    "podReplacementPolicy": {"TerminatingOrFailed", "Failed"},
}
FAILURE_ACTIONS = {"FailJob", "FailIndex", "Ignore", "Count"}
EXIT_OPERATORS = {"In", "NotIn"}
CONDITION_STATUSES = {"True", "False", "Unknown"}
POD_ENUMS = {
    "restartPolicy": {"Always", "OnFailure", "Never"},
    "dnsPolicy": {"ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"},
    "preemptionPolicy": {"PreemptLowerPriority", "Never"},
}
POD_SECURITY_ENUMS = {"fsGroupChangePolicy": {"OnRootMismatch", "Always"}}
PROFILE_TYPES = {
    "seccompProfile": {"RuntimeDefault", "Localhost", "Unconfined"},
    "appArmorProfile": {"RuntimeDefault", "Localhost", "Unconfined"},
}
CONTAINER_ENUMS = {
    "imagePullPolicy": {"Always", "Never", "IfNotPresent"},
    "terminationMessagePolicy": {"File", "FallbackToLogsOnError"},
}
PROTOCOLS = {"TCP", "UDP", "SCTP"}
EMPTYDIR_MEDIA = {"", "Memory", "HugePages"}
ACCESS_MODES = {"ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"}
VOLUME_MODES = {"Filesystem", "Block"}
QUANTITY = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?\d+)?$")
SUFFIX = {
    "": 1, "n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60,
}


def enum(value, allowed, at):
    if value is not None and value not in allowed:
        return [f"{at}: {value!r} is not one of {', '.join(sorted(allowed))} (the API server refuses it)"]
    return []


def quantity(value, at):
    """The quantity's value, or a fault."""
    text = str(value)
    if not QUANTITY.match(text):
        return None, [f"{at}: {text!r} is not a quantity"]
    match = re.match(r"^([+-]?[\d.]+)(.*)$", text)
    number, suffix = float(match.group(1)), match.group(2)
    if suffix and suffix[0] in "eE" and suffix not in SUFFIX:
        return number * 10 ** int(suffix[1:]), []
    return number * SUFFIX[suffix], []


def job_faults(spec, pod):
    out = []
    for field, allowed in JOB_ENUMS.items():
        out += enum(spec.get(field), allowed, f"spec.{field}")
    if pod.get("restartPolicy") not in (None, "Never", "OnFailure"):
        out.append(f"spec.template.spec.restartPolicy: {pod['restartPolicy']!r}; a Job's pods need Never or OnFailure")
    names = {c.get("name") for c in pod.get("containers") or [] if isinstance(c, dict)}
    rules = ((spec.get("podFailurePolicy") or {}).get("rules")) or []
    for i, rule in enumerate(rules):
        at = f"spec.podFailurePolicy.rules.{i}"
        if not isinstance(rule, dict):
            continue
        action = rule.get("action")
        out += enum(action, FAILURE_ACTIONS, f"{at}.action")
        if action == "FailIndex" and spec.get("backoffLimitPerIndex") is None:
            out.append(f"{at}.action: FailIndex needs spec.backoffLimitPerIndex (the API server refuses it without)")
        codes = rule.get("onExitCodes")
        conditions = rule.get("onPodConditions")
        if (codes is None) == (conditions is None):
            out.append(f"{at}: exactly one of onExitCodes and onPodConditions")
        if isinstance(codes, dict):
            operator = codes.get("operator")
            out += enum(operator, EXIT_OPERATORS, f"{at}.onExitCodes.operator")
            values = codes.get("values") or []
            if not values:
                out.append(f"{at}.onExitCodes.values: at least one exit code")
            if values != sorted(set(values)):
                out.append(f"{at}.onExitCodes.values: must be unique and in ascending order")
            if operator == "In" and 0 in values:
                out.append(f"{at}.onExitCodes.values: 0 cannot be used with the In operator")
            container = codes.get("containerName")
            if container is not None and container not in names:
                out.append(f"{at}.onExitCodes.containerName: no container {container!r} in the pod")
        for c_i, condition in enumerate(conditions or []):
            out += enum((condition or {}).get("status"), CONDITION_STATUSES, f"{at}.onPodConditions.{c_i}.status")
    return out


def pod_faults(pod, base):
    out = []
    for field, allowed in POD_ENUMS.items():
        out += enum(pod.get(field), allowed, f"{base}.{field}")
    sc = pod.get("securityContext") or {}
    for field, allowed in POD_SECURITY_ENUMS.items():
        out += enum(sc.get(field), allowed, f"{base}.securityContext.{field}")
    out += profile_faults(sc, f"{base}.securityContext")
    for i, vol in enumerate(pod.get("volumes") or []):
        empty = (vol or {}).get("emptyDir")
        if isinstance(empty, dict):
            out += enum(empty.get("medium"), EMPTYDIR_MEDIA, f"{base}.volumes.{i}.emptyDir.medium")
            if "sizeLimit" in empty:
                out += quantity(empty["sizeLimit"], f"{base}.volumes.{i}.emptyDir.sizeLimit")[1]
    for group in ("initContainers", "containers"):
        for c_i, c in enumerate(pod.get(group) or []):
            at = f"{base}.{group}.{c_i}"
            if not isinstance(c, dict):
                continue
            for field, allowed in CONTAINER_ENUMS.items():
                out += enum(c.get(field), allowed, f"{at}.{field}")
            out += profile_faults(c.get("securityContext") or {}, f"{at}.securityContext")
            for p_i, port in enumerate(c.get("ports") or []):
                out += enum((port or {}).get("protocol"), PROTOCOLS, f"{at}.ports.{p_i}.protocol")
            resources = c.get("resources") or {}
            values = {}
            for kind in ("requests", "limits"):
                for name, value in (resources.get(kind) or {}).items():
                    parsed, problems = quantity(value, f"{at}.resources.{kind}.{name}")
                    out += problems
                    values[(kind, name)] = parsed
            for (kind, name), limit in values.items():
                request = values.get(("requests", name))
                if kind == "limits" and limit is not None and request is not None and limit < request:
                    out.append(f"{at}.resources.limits.{name}: below its request")
    return out


def profile_faults(sc, at):
    out = []
    for field, allowed in PROFILE_TYPES.items():
        profile = sc.get(field) or {}
        kind = profile.get("type")
        out += enum(kind, allowed, f"{at}.{field}.type")
        if kind == "Localhost" and not profile.get("localhostProfile"):
            out.append(f"{at}.{field}.localhostProfile: Localhost needs it")
    return out


def claim_faults(spec):
    out = []
    for i, mode in enumerate(spec.get("accessModes") or []):
        out += enum(mode, ACCESS_MODES, f"spec.accessModes.{i}")
    out += enum(spec.get("volumeMode"), VOLUME_MODES, "spec.volumeMode")
    storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage")
    if storage is not None:
        out += quantity(storage, "spec.resources.requests.storage")[1]
    return out
