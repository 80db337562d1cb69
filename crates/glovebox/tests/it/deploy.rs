//! The Kubernetes manifests of `deploy/kubernetes/`, checked offline against
//! the pinned schemas of Kubernetes' own objects and agent-sandbox's CRDs
//! (`deploy/kubernetes/check.py`, Debian's python3-jsonschema and
//! python3-yaml): every manifest holds, and a broken copy is refused naming
//! what is wrong.
#![cfg(target_os = "linux")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn check(files: &[&Path]) -> Output {
    Command::new("/usr/bin/python3")
        .arg(repo().join("deploy/kubernetes/check.py"))
        .args(files)
        .current_dir(repo())
        .output()
        .unwrap()
}

#[test]
fn every_manifest_holds_against_its_pinned_schema() {
    let output = check(&[]);
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{printed}{}", String::from_utf8_lossy(&output.stderr));
    for object in [
        "Job/glovebox-episodes",
        "Job/glovebox-osworld",
        "Namespace/glovebox-episodes",
        "PersistentVolumeClaim/glovebox-records",
        "Job/glovebox-episodes-summary",
        "SandboxTemplate/glovebox-desktop",
        "SandboxWarmPool/glovebox-desktops",
        "SandboxClaim/episode-form",
    ] {
        assert!(
            printed.lines().any(|l| l.starts_with("ok ") && l.ends_with(object)),
            "{object} was not checked: {printed}"
        );
    }
}

#[test]
fn a_misspelt_field_a_wrong_type_or_a_dangling_reference_is_refused_by_name() {
    let dir = std::env::temp_dir().join(format!("glovebox-deploy-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let job = "deploy/kubernetes/job/episodes-job.yaml";
    refused(
        &dir,
        "misspelt.yaml",
        job,
        &[("parallelism:", "parallellism:")],
        "'parallellism' was unexpected",
    );
    refused(
        &dir,
        "wrong-type.yaml",
        job,
        &[("parallelism: 4", "parallelism: \"4\"")],
        "parallelism: '4' is not of type 'integer'",
    );
    refused(
        &dir,
        "no-claim.yaml",
        job,
        &[("claimName: glovebox-records", "claimName: glovebox-record")],
        "glovebox-record",
    );
    // The OSWorld tasks' Job runs one pod per task file of the directory its ConfigMap is made from.
    refused(
        &dir,
        "osworld-count.yaml",
        "deploy/kubernetes/job/osworld-job.yaml",
        &[("completions: 3", "completions: 4")],
        "spec.completions: 4, but examples/osworld has 3 spec files",
    );
    refused(
        &dir,
        "no-template.yaml",
        "deploy/kubernetes/agent-sandbox/warm-pool.yaml",
        &[("name: glovebox-desktop\n", "name: glovebox-dekstop\n")],
        "glovebox-dekstop",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A copy of `file` with each `(from, to)` replaced once, checked: it must fail naming `expected`.
fn refused(dir: &Path, name: &str, file: &str, edits: &[(&str, &str)], expected: &str) {
    let original = std::fs::read_to_string(repo().join(file)).unwrap();
    let mut text = original.clone();
    for (from, to) in edits {
        assert!(text.contains(from), "{name}: {from:?} is not in {file}");
        text = text.replacen(from, to, 1);
    }
    assert_ne!(text, original, "{name}: the manifest did not change");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let output = check(&[&path]);
    let printed = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{name}: {printed}");
    assert!(printed.contains(expected), "{name}: expected {expected:?} in {printed}");
}

#[test]
fn a_pod_below_the_restricted_profile_or_a_value_the_api_server_refuses_fails_the_check() {
    let dir = std::env::temp_dir().join(format!("glovebox-deploy-pss-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let job = "deploy/kubernetes/job/episodes-job.yaml";
    let template = "deploy/kubernetes/agent-sandbox/sandbox-template.yaml";
    // What Pod Security Admission refuses in a namespace enforcing "restricted".
    refused(
        &dir,
        "root.yaml",
        job,
        &[("runAsUser: 10001", "runAsUser: 0")],
        "spec.template.spec.securityContext.runAsUser: 0 (restricted: Running as Non-root user)",
    );
    refused(
        &dir,
        "root-container.yaml",
        template,
        &[("            runAsNonRoot: true\n", "            runAsNonRoot: false\n")],
        "spec.podTemplate.spec.containers.0.securityContext.runAsNonRoot: false",
    );
    refused(
        &dir,
        "escalation.yaml",
        job,
        &[("allowPrivilegeEscalation: false", "allowPrivilegeEscalation: true")],
        "allowPrivilegeEscalation: must be false (restricted: Privilege Escalation)",
    );
    refused(
        &dir,
        "capability.yaml",
        job,
        &[("drop: [\"ALL\"]", "drop: [\"ALL\"]\n              add: [\"SYS_ADMIN\"]")],
        "capabilities.add: SYS_ADMIN (baseline: Capabilities)",
    );
    refused(
        &dir,
        "unconfined.yaml",
        job,
        &[("type: RuntimeDefault", "type: Unconfined")],
        "spec.template.spec.securityContext.seccompProfile.type: Unconfined (baseline: Seccomp)",
    );
    refused(
        &dir,
        "host-path.yaml",
        job,
        &[("emptyDir:\n            sizeLimit: 64Mi", "hostPath:\n            path: /tmp")],
        "spec.template.spec.volumes.2.hostPath: not allowed (baseline: HostPath Volumes)",
    );
    refused(
        &dir,
        "namespace.yaml",
        "deploy/kubernetes/job/namespace.yaml",
        &[(
            "pod-security.kubernetes.io/enforce: restricted",
            "pod-security.kubernetes.io/enforce: baseline",
        )],
        "metadata.labels[pod-security.kubernetes.io/enforce]: 'baseline', not 'restricted'",
    );
    // What the schema lets through and the API server refuses.
    refused(
        &dir,
        "misspelt-action.yaml",
        job,
        &[("action: FailIndex", "action: FailIndexx")],
        "spec.podFailurePolicy.rules.0.action: 'FailIndexx' is not one of Count, FailIndex, FailJob, Ignore",
    );
    refused(
        &dir,
        "no-backoff-per-index.yaml",
        job,
        &[("  backoffLimitPerIndex: 1", "  backoffLimit: 1")],
        "spec.podFailurePolicy.rules.0.action: FailIndex needs spec.backoffLimitPerIndex",
    );
    refused(
        &dir,
        "zero-exit.yaml",
        job,
        &[("values: [7]", "values: [0, 7]")],
        "onExitCodes.values: 0 cannot be used with the In operator",
    );
    refused(
        &dir,
        "pull-policy.yaml",
        template,
        &[("imagePullPolicy: IfNotPresent", "imagePullPolicy: IfMissing")],
        "imagePullPolicy: 'IfMissing' is not one of Always, IfNotPresent, Never",
    );
    refused(
        &dir,
        "quantity.yaml",
        job,
        &[("ephemeral-storage: 256Mi", "ephemeral-storage: 256MB")],
        "resources.limits.ephemeral-storage: '256MB' is not a quantity",
    );
    refused(
        &dir,
        "limit-below-request.yaml",
        job,
        &[("memory: 1Gi", "memory: 256Mi")],
        "resources.limits.memory: below its request",
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
