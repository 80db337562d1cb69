//! The 1,000-call version of `glovebox-soak` (the 10,000-call run and its
//! figures are in docs/reliability.md): a mix of observation, input and refusals
//! through `glovebox mcp` on a private desktop costs no file descriptors,
//! no shared-memory segments, no X windows and no accessibility-bus match
//! rules, and a bounded amount of memory. Latency is printed; its bound is
//! the benchmark's business (`--latency-ratio` is loose here, since CI runs
//! other suites beside this one).
#![cfg(target_os = "linux")]

use serde_json::Value;

#[test]
fn a_thousand_mcp_calls_leak_nothing() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_glovebox-soak"))
        .args(["--calls", "1000", "--json", "--latency-ratio", "4"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let figures: Value = serde_json::from_str(stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    println!("glovebox-soak --calls 1000: {figures}");
    assert_eq!(figures["broken"], serde_json::json!([]), "{figures}");
    assert!(out.status.success(), "{figures}");
    let report = &figures["report"];
    assert_eq!(report["calls"], 1000);
    assert!(
        report["refusals"].as_u64().unwrap() >= 200,
        "the mix refuses a quarter of its calls: {report}"
    );
    assert!(
        report["after"]["rss_kib"].as_i64().unwrap() > 0
            && report["after"]["fds"].as_i64().unwrap() > 0,
        "the figures were read: {report}"
    );
}
