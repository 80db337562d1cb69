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
        "Namespace/glovebox-episodes",
        "PersistentVolumeClaim/glovebox-records",
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
    let job =
        std::fs::read_to_string(repo().join("deploy/kubernetes/job/episodes-job.yaml")).unwrap();
    let pool =
        std::fs::read_to_string(repo().join("deploy/kubernetes/agent-sandbox/warm-pool.yaml"))
            .unwrap();
    let cases = [
        (
            "misspelt.yaml",
            job.replace("parallelism:", "parallellism:"),
            "'parallellism' was unexpected",
        ),
        (
            "wrong-type.yaml",
            job.replace("parallelism: 4", "parallelism: \"4\""),
            "parallelism: '4' is not of type 'integer'",
        ),
        (
            "no-claim.yaml",
            job.replace("claimName: glovebox-records", "claimName: glovebox-record"),
            "glovebox-record",
        ),
        (
            "no-template.yaml",
            pool.replace("name: glovebox-desktop\n", "name: glovebox-dekstop\n"),
            "glovebox-dekstop",
        ),
    ];
    for (name, text, expected) in cases {
        assert_ne!(
            &text,
            if name == "no-template.yaml" { &pool } else { &job },
            "{name}: the manifest did not change"
        );
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        let output = check(&[&path]);
        let printed = String::from_utf8_lossy(&output.stdout);
        assert_eq!(output.status.code(), Some(1), "{name}: {printed}");
        assert!(printed.contains(expected), "{name}: expected {expected:?} in {printed}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
