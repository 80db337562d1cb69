//! ARCHITECTURE.md's dependency table checked against the real graph
//! (`cargo metadata`): the drawing cannot drift from the manifests; and
//! the rule that the gate decides, read in the sources: no refusal with a
//! code of the gate's is built outside `glovebox-host/src/decide/`.

use std::collections::{BTreeMap, BTreeSet};

/// Each crate and the workspace crates it uses, in the table's order.
type Graph = Vec<(String, BTreeSet<String>)>;

/// The table between the `dependencies` markers of ARCHITECTURE.md.
pub fn table(markdown: &str) -> Result<Graph, String> {
    let start = markdown
        .find("<!-- dependencies: begin -->")
        .ok_or("no `<!-- dependencies: begin -->` marker")?;
    let end = markdown
        .find("<!-- dependencies: end -->")
        .ok_or("no `<!-- dependencies: end -->` marker")?;
    let rows = markdown.get(start..end).ok_or("the end marker comes before the begin marker")?;
    let mut graph = Graph::new();
    for line in rows.lines().filter(|l| l.starts_with('|')).skip(2) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [name, uses] = cells[..] else {
            return Err(format!("a row is not `| crate | uses |`: {line}"));
        };
        let uses =
            uses.split(',').map(str::trim).filter(|u| !u.is_empty()).map(str::to_owned).collect();
        graph.push((name.to_owned(), uses));
    }
    Ok(graph)
}

/// Each workspace crate and the workspace crates among its normal
/// dependencies, from `cargo metadata --no-deps` output.
pub fn real(metadata: &serde_json::Value) -> Result<BTreeMap<String, BTreeSet<String>>, String> {
    let packages = metadata["packages"].as_array().ok_or("cargo metadata has no packages")?;
    let names: BTreeSet<&str> = packages.iter().filter_map(|p| p["name"].as_str()).collect();
    let mut graph = BTreeMap::new();
    for package in packages {
        let name = package["name"].as_str().ok_or("a package without a name")?;
        let deps = package["dependencies"].as_array().into_iter().flatten();
        let uses = deps
            .filter(|d| d["kind"].is_null())
            .filter_map(|d| d["name"].as_str())
            .filter(|d| names.contains(d))
            .map(str::to_owned)
            .collect();
        graph.insert(name.to_owned(), uses);
    }
    Ok(graph)
}

/// Where the table and the real graph differ, and any arrow of the table
/// that runs back up (to a crate of a later row, or to itself).
pub fn differences(table: &Graph, real: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = vec![];
    let mut below = BTreeSet::new();
    for (name, uses) in table {
        match real.get(name) {
            None => found.push(format!("{name} is in the table but not in the workspace")),
            Some(actual) if actual != uses => {
                let missing: Vec<_> = actual.difference(uses).collect();
                let extra: Vec<_> = uses.difference(actual).collect();
                found.push(format!("{name}: the manifest uses {missing:?} the table does not show; the table shows {extra:?} the manifest does not use"));
            }
            Some(_) => {}
        }
        for up in uses.iter().filter(|u| !below.contains(*u)) {
            found.push(format!("{name} uses {up}, which is not below it in the table"));
        }
        below.insert(name.clone());
    }
    for name in real.keys().filter(|n| !table.iter().any(|(t, _)| t == *n)) {
        found.push(format!("{name} is in the workspace but has no row in the table"));
    }
    found
}

/// The packages with more than one integration test binary, each with its
/// binaries' names: a crate's integration tests are modules of one binary
/// (`tests/it/main.rs`), which links once and runs its suites side by side.
pub fn extra_test_binaries(metadata: &serde_json::Value) -> Result<Vec<String>, String> {
    let packages = metadata["packages"].as_array().ok_or("cargo metadata has no packages")?;
    let mut found = vec![];
    for package in packages {
        let name = package["name"].as_str().ok_or("a package without a name")?;
        let tests: Vec<&str> = package["targets"]
            .as_array()
            .ok_or("a package without targets")?
            .iter()
            .filter(|t| t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == "test")))
            .filter_map(|t| t["name"].as_str())
            .collect();
        if tests.len() > 1 {
            found.push(format!("{name}: {}", tests.join(", ")));
        }
    }
    Ok(found)
}

/// The crates of `table` that the drawing (the first ```text block of
/// ARCHITECTURE.md) does not name.
pub fn left_out_of_the_drawing(markdown: &str, table: &Graph) -> Result<Vec<String>, String> {
    let start = markdown.find("```text\n").ok_or("no ```text drawing")?;
    let drawing = &markdown[start + 8..];
    let drawing = &drawing[..drawing.find("```").ok_or("the drawing is not closed")?];
    let drawn = |name: &str| {
        drawing.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).any(|w| w == name)
    };
    Ok(table.iter().map(|(name, _)| name.clone()).filter(|name| !drawn(name)).collect())
}

/// Codes any layer may build: an argument a parser could not read, a
/// model's answer outside the schema, and a layer's own machinery failing
/// (a socket, a runtime, a file). Every other code says what the gate
/// decided, and is built in `decide/` only.
const BUILT_ANYWHERE: [&str; 3] = ["InvalidArgument", "ModelSchemaViolation", "BackendUnavailable"];

/// Where refusals of every code are built: the gate's decisions, the one
/// mapping of lower layers' errors, and the model crate (the registry, and
/// the shapes' own checks every layer shares).
fn may_build_any(path: &str) -> bool {
    path.starts_with("crates/glovebox-host/src/decide/")
        || path == "crates/glovebox-host/src/backend.rs"
        || path.starts_with("crates/glovebox-model/")
}

/// What follows an opening the scan looks for.
#[derive(Clone, Copy)]
enum Then {
    /// `Refusal::new` with a code of the registry as its first argument.
    CodeArgument,
    /// A `Refusal` written as a struct, its `code` field a code of the registry.
    CodeField,
    /// A helper that means one code.
    Helper(&'static str),
}

/// The refusals `source` (the file at `path`, relative to the workspace)
/// builds with a gate's code outside the places that may: each as its
/// line and code. Test modules (`#[cfg(test)] mod tests` and `tests.rs`
/// files) are not read.
pub fn gate_refusals_outside_the_gate(path: &str, source: &str) -> Vec<(usize, String)> {
    if may_build_any(path) || path.ends_with("tests.rs") || path.contains("/tests/") {
        return vec![];
    }
    let product = source.split("#[cfg(test)]\nmod tests").next().unwrap_or_default();
    let mut found = vec![];
    // Written in two halves, so this file does not find itself.
    for (opening, then) in [
        (concat!("Refusal", "::new("), Then::CodeArgument),
        (concat!("code: ", "ErrorCode::"), Then::CodeField),
        (concat!("Refusal", "::target_gone("), Then::Helper("TargetGone")),
    ] {
        for (at, _) in product.match_indices(opening) {
            let after = product[at + opening.len()..].trim_start();
            let name = |rest: &str| {
                rest.split(|c: char| !c.is_ascii_alphanumeric())
                    .next()
                    .unwrap_or_default()
                    .to_owned()
            };
            let code = match then {
                Then::Helper(code) => code.to_owned(),
                Then::CodeField => name(after),
                Then::CodeArgument => match after.strip_prefix("ErrorCode::") {
                    Some(rest) => name(rest),
                    // A code carried over from another refusal or a lower layer's mapping.
                    None => continue,
                },
            };
            if !BUILT_ANYWHERE.contains(&code.as_str()) {
                found.push((product[..at].lines().count().max(1), code));
            }
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root() -> std::path::PathBuf {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    fn metadata() -> serde_json::Value {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let out = std::process::Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
            .current_dir(root())
            .output()
            .expect("cargo metadata runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("cargo metadata prints JSON")
    }

    #[test]
    fn the_dependency_table_is_the_real_graph() {
        let markdown = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
        let table = table(&markdown).unwrap();
        let found = differences(&table, &real(&metadata()).unwrap());
        assert!(
            found.is_empty(),
            "ARCHITECTURE.md's dependency table and the manifests differ:\n{}",
            found.join("\n")
        );
    }

    #[test]
    fn an_injected_dependency_or_an_arrow_back_up_is_found() {
        let markdown = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
        let table = table(&markdown).unwrap();
        let mut real = real(&metadata()).unwrap();
        // The model gaining a dependency on the host: not in the table, and upwards.
        real.get_mut("glovebox-model").unwrap().insert("glovebox-host".into());
        let found = differences(&table, &real);
        assert!(
            found
                .iter()
                .any(|f| f.starts_with("glovebox-model: the manifest uses [\"glovebox-host\"]")),
            "{found:?}"
        );
        // The same edge written into the table too: still an arrow back up.
        let mut drawn = table.clone();
        drawn[0].1.insert("glovebox-host".into());
        let found = differences(&drawn, &real);
        assert_eq!(
            found,
            vec!["glovebox-model uses glovebox-host, which is not below it in the table".to_owned()]
        );
    }

    #[test]
    fn each_crate_has_at_most_one_integration_test_binary() {
        assert_eq!(extra_test_binaries(&metadata()).unwrap(), Vec::<String>::new());
        // A second binary in the command's crate is found.
        let mut grown = metadata();
        let cli = grown["packages"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|p| p["name"] == "glovebox-cli")
            .unwrap();
        cli["targets"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"name": "extra", "kind": ["test"]}));
        assert_eq!(
            extra_test_binaries(&grown).unwrap(),
            vec!["glovebox-cli: it, extra".to_owned()]
        );
    }

    #[test]
    fn every_refusal_of_the_gate_is_built_in_decide() {
        let mut found = vec![];
        let mut read = 0;
        let mut pending = vec![root().join("crates")];
        while let Some(dir) = pending.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    pending.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    let relative =
                        path.strip_prefix(root()).unwrap().to_string_lossy().into_owned();
                    if !relative.contains("/src/") {
                        continue;
                    }
                    read += 1;
                    let source = std::fs::read_to_string(&path).unwrap();
                    for (line, code) in gate_refusals_outside_the_gate(&relative, &source) {
                        found.push(format!("{relative}:{line}: ErrorCode::{code}"));
                    }
                }
            }
        }
        assert!(read > 100, "only {read} source files read");
        assert!(
            found.is_empty(),
            "refusals of the gate built outside decide/:\n{}",
            found.join("\n")
        );
    }

    #[test]
    fn a_gate_refusal_written_in_a_surface_is_found() {
        let surface = "fn f() -> Refusal {\n    Refusal::new(\n        ErrorCode::StaleRef,\n        \"x\",\n    )\n}\nfn g() -> Refusal { Refusal { code: ErrorCode::NoGrant, message: m } }\nfn h() -> Refusal { Refusal::target_gone(\"w\") }\nfn ok() -> Refusal { Refusal::new(ErrorCode::InvalidArgument, \"y\") }\nfn relayed(r: Refusal) -> Refusal { Refusal::new(r.code, \"z\") }\n#[cfg(test)]\nmod tests {\n    fn t() { Refusal::new(ErrorCode::Timeout, \"t\"); }\n}\n";
        assert_eq!(
            gate_refusals_outside_the_gate("crates/glovebox-mcp/src/lib.rs", surface),
            vec![
                (2, "StaleRef".to_owned()),
                (7, "NoGrant".to_owned()),
                (8, "TargetGone".to_owned())
            ]
        );
        assert!(gate_refusals_outside_the_gate("crates/glovebox-host/src/decide/mod.rs", surface)
            .is_empty());
    }

    #[test]
    fn the_drawing_names_every_crate() {
        let markdown = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
        let table = table(&markdown).unwrap();
        assert_eq!(left_out_of_the_drawing(&markdown, &table).unwrap(), Vec::<String>::new());
        // A crate the drawing forgets is found.
        let forgotten = markdown.replacen("glovebox-ocr ", "the reader ", 1);
        assert_eq!(
            left_out_of_the_drawing(&forgotten, &table).unwrap(),
            vec!["glovebox-ocr".to_owned()]
        );
    }
}
