"""The Pod Security Standards' "restricted" profile, as check.py applies it.

Written from the published standard (kubernetes.io/docs/concepts/security/
pod-security-standards/, policy version v1.33, which the pinned schemas
also are): every control of the "baseline" profile, then the controls
"restricted" adds. Each fault names the field and the control, as Pod
Security Admission's own refusal would ("allowPrivilegeEscalation != false").

Windows-only exemptions (spec.os.name: windows) are not modelled: these
manifests run Linux pods only, and a Windows pod is reported as such.
"""

# Baseline, "Capabilities": what a container may add.
BASELINE_CAPABILITIES = {
    "AUDIT_WRITE", "CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "MKNOD",
    "NET_BIND_SERVICE", "SETFCAP", "SETGID", "SETPCAP", "SETUID", "SYS_CHROOT",
}
# Baseline, "Sysctls": the safe set.
SAFE_SYSCTLS = {
    "kernel.shm_rmid_forced", "net.ipv4.ip_local_port_range", "net.ipv4.ip_unprivileged_port_start",
    "net.ipv4.tcp_syncookies", "net.ipv4.ping_group_range", "net.ipv4.ip_local_reserved_ports",
    "net.ipv4.tcp_keepalive_time", "net.ipv4.tcp_fin_timeout", "net.ipv4.tcp_keepalive_intvl",
    "net.ipv4.tcp_keepalive_probes",
}
# Baseline, "SELinux": the types a pod or container may ask for.
SELINUX_TYPES = {"", "container_t", "container_init_t", "container_kvm_t", "container_engine_t"}
# Restricted, "Volume Types": the only sources a volume may have.
RESTRICTED_VOLUMES = {
    "configMap", "csi", "downwardAPI", "emptyDir", "ephemeral", "persistentVolumeClaim",
    "projected", "secret",
}
CONTAINER_GROUPS = ("initContainers", "containers", "ephemeralContainers")


def containers(pod, base):
    for group in CONTAINER_GROUPS:
        for i, container in enumerate(pod.get(group) or []):
            if isinstance(container, dict):
                yield f"{base}.{group}.{i}", container


def faults(pod, base, metadata=None):
    """The restricted profile's faults in one pod spec at `base`; metadata is the pod template's."""
    out = []
    if not isinstance(pod, dict):
        return [f"{base}: not a pod spec"]
    if (pod.get("os") or {}).get("name") == "windows":
        return [f"{base}.os.name: a Windows pod (these checks are for Linux pods)"]
    pod_sc = pod.get("securityContext") or {}
    listed = list(containers(pod, base))

    # Baseline.
    for field in ("hostNetwork", "hostPID", "hostIPC"):
        if pod.get(field):
            out.append(f"{base}.{field}: host namespaces are not allowed (baseline: Host Namespaces)")
    if (pod_sc.get("windowsOptions") or {}).get("hostProcess"):
        out.append(f"{base}.securityContext.windowsOptions.hostProcess: not allowed (baseline: HostProcess)")
    for i, vol in enumerate(pod.get("volumes") or []):
        if not isinstance(vol, dict):
            continue
        if "hostPath" in vol:
            out.append(f"{base}.volumes.{i}.hostPath: not allowed (baseline: HostPath Volumes)")
        sources = [k for k in vol if k != "name"]
        for source in sources:
            if source not in RESTRICTED_VOLUMES and source != "hostPath":
                out.append(
                    f"{base}.volumes.{i}.{source}: a volume type restricted does not allow "
                    f"(only {', '.join(sorted(RESTRICTED_VOLUMES))})"
                )
    for i, sysctl in enumerate(pod_sc.get("sysctls") or []):
        name = (sysctl or {}).get("name")
        if name not in SAFE_SYSCTLS:
            out.append(f"{base}.securityContext.sysctls.{i}.name: {name!r} is not a safe sysctl (baseline: Sysctls)")
    out += selinux(pod_sc, f"{base}.securityContext")
    out += apparmor(pod_sc, f"{base}.securityContext")
    annotations = (metadata or {}).get("annotations") or {}
    for key, value in annotations.items():
        if key.startswith("container.apparmor.security.beta.kubernetes.io/"):
            if value != "runtime/default" and not str(value).startswith("localhost/"):
                out.append(f"metadata.annotations[{key}]: {value!r} (baseline: AppArmor)")
    pod_seccomp = (pod_sc.get("seccompProfile") or {}).get("type")
    if pod_seccomp == "Unconfined":
        out.append(f"{base}.securityContext.seccompProfile.type: Unconfined (baseline: Seccomp)")

    # Restricted, pod level.
    if pod_sc.get("runAsUser") == 0:
        out.append(f"{base}.securityContext.runAsUser: 0 (restricted: Running as Non-root user)")
    pod_non_root = pod_sc.get("runAsNonRoot")
    if pod_non_root is False:
        out.append(f"{base}.securityContext.runAsNonRoot: false (restricted: Running as Non-root)")

    for at, c in listed:
        sc = c.get("securityContext") or {}
        if sc.get("privileged"):
            out.append(f"{at}.securityContext.privileged: true (baseline: Privileged Containers)")
        if (sc.get("windowsOptions") or {}).get("hostProcess"):
            out.append(f"{at}.securityContext.windowsOptions.hostProcess: not allowed (baseline: HostProcess)")
        for p_i, port in enumerate(c.get("ports") or []):
            if (port or {}).get("hostPort"):
                out.append(f"{at}.ports.{p_i}.hostPort: not allowed (baseline: Host Ports)")
        if sc.get("procMount") not in (None, "Default"):
            out.append(f"{at}.securityContext.procMount: {sc['procMount']!r} (baseline: /proc Mount Type)")
        out += selinux(sc, f"{at}.securityContext")
        out += apparmor(sc, f"{at}.securityContext")
        caps = sc.get("capabilities") or {}
        added = caps.get("add") or []
        for cap in added:
            if cap not in BASELINE_CAPABILITIES:
                out.append(f"{at}.securityContext.capabilities.add: {cap} (baseline: Capabilities)")
            elif cap != "NET_BIND_SERVICE":
                out.append(
                    f"{at}.securityContext.capabilities.add: {cap} (restricted: Capabilities allows "
                    "NET_BIND_SERVICE only)"
                )
        if "ALL" not in (caps.get("drop") or []):
            out.append(f"{at}.securityContext.capabilities.drop: must contain ALL (restricted: Capabilities)")
        if sc.get("allowPrivilegeEscalation") is not False:
            out.append(f"{at}.securityContext.allowPrivilegeEscalation: must be false (restricted: Privilege Escalation)")
        non_root = sc.get("runAsNonRoot")
        if non_root is False:
            out.append(f"{at}.securityContext.runAsNonRoot: false (restricted: Running as Non-root)")
        elif non_root is None and pod_non_root is not True:
            out.append(
                f"{at}.securityContext.runAsNonRoot: must be true here or in the pod's securityContext "
                "(restricted: Running as Non-root)"
            )
        if sc.get("runAsUser") == 0:
            out.append(f"{at}.securityContext.runAsUser: 0 (restricted: Running as Non-root user)")
        seccomp = (sc.get("seccompProfile") or {}).get("type")
        if seccomp == "Unconfined":
            out.append(f"{at}.securityContext.seccompProfile.type: Unconfined (baseline: Seccomp)")
        elif seccomp is None and pod_seccomp not in ("RuntimeDefault", "Localhost"):
            out.append(
                f"{at}.securityContext.seccompProfile.type: must be RuntimeDefault or Localhost here or "
                "in the pod's securityContext (restricted: Seccomp)"
            )
    return out


def selinux(sc, at):
    options = sc.get("seLinuxOptions") or {}
    out = []
    if options.get("type", "") not in SELINUX_TYPES:
        out.append(f"{at}.seLinuxOptions.type: {options['type']!r} (baseline: SELinux)")
    for field in ("user", "role"):
        if options.get(field):
            out.append(f"{at}.seLinuxOptions.{field}: must be unset (baseline: SELinux)")
    return out


def apparmor(sc, at):
    kind = (sc.get("appArmorProfile") or {}).get("type")
    if kind not in (None, "RuntimeDefault", "Localhost"):
        return [f"{at}.appArmorProfile.type: {kind!r} (baseline: AppArmor)"]
    return []


ENFORCE_LABEL = "pod-security.kubernetes.io/enforce"


def namespace_faults(namespace_body):
    """A namespace that holds pods must enforce the restricted level."""
    labels = ((namespace_body.get("metadata") or {}).get("labels")) or {}
    level = labels.get(ENFORCE_LABEL)
    if level != "restricted":
        found = "not set" if level is None else f"{level!r}"
        return [f"metadata.labels[{ENFORCE_LABEL}]: {found}, not 'restricted' (its pods must meet the restricted profile)"]
    return []
