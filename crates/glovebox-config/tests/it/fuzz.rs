//! Configuration fuzzed (see glovebox-fuzz): `GLOVEBOX_*` values for every
//! key, whole config files (valid ones mutated, and garbage), and
//! `glovebox config set` of any key to any text. Each loads, or fails with
//! an error naming its layer; none panics, and a value that loads reads
//! back through `get`.

use glovebox_config::{keys, set_in_file, Layered, Sources};
use glovebox_fuzz::{run, text, Budget, Rng};

fn env_name(key: &str) -> String {
    format!("GLOVEBOX_{}", key.replace('.', "_").to_uppercase())
}

#[test]
fn fuzz_environment_values() {
    let keys = keys();
    let generate = |rng: &mut Rng| {
        let (key, default) = rng.pick(&keys).clone();
        let value = match rng.below(3) {
            0 => default.to_string().trim_matches('"').to_owned(),
            _ => text(rng),
        };
        (key, value)
    };
    run(
        "GLOVEBOX_* values",
        Budget::from_env(glovebox_fuzz::DEFAULT_CASES),
        generate,
        |(key, value)| {
            let sources =
                Sources { environment: vec![(env_name(key), value.clone())], ..Default::default() };
            match Layered::load(&sources) {
                Ok(layered) => layered.get(key).map(|_| ()).map_err(|e| {
                    format!("{key} loaded from {value:?} but does not read back: {e}")
                }),
                // The variable, or the key in the sentence of a check across keys.
                Err(e)
                    if e.origin == format!("${}", env_name(key))
                        || e.message.contains(key.as_str()) =>
                {
                    Ok(())
                }
                Err(e) => Err(format!(
                    "{key} = {value:?}: the error ({e}) names neither the variable nor the key"
                )),
            }
        },
    );
}

#[test]
fn fuzz_config_files() {
    let dir = std::env::temp_dir().join(format!("glovebox-config-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("config.toml");
    let keys = keys();
    let generate = |rng: &mut Rng| {
        (0..rng.below(6) + 1)
            .map(|_| {
                let (key, default) = rng.pick(&keys).clone();
                let (table, leaf) = key
                    .rsplit_once('.')
                    .map(|(t, l)| (Some(t.to_owned()), l.to_owned()))
                    .unwrap_or((None, key.clone()));
                let value = match rng.below(4) {
                    0 => default.to_string(),
                    1 => format!("{:?}", text(rng)),
                    2 => text(rng),
                    _ => rng
                        .pick(&[
                            "true",
                            "-1",
                            "1e9",
                            "[1, 2]",
                            "{a = 1}",
                            "\"\"",
                            "18446744073709551616",
                        ])
                        .to_string(),
                };
                match table {
                    Some(table) => format!("[{table}]\n{leaf} = {value}\n"),
                    None => format!("{leaf} = {value}\n"),
                }
            })
            .collect::<String>()
    };
    run("config files", Budget::from_env(glovebox_fuzz::DEFAULT_CASES / 2), generate, |content| {
        std::fs::write(&file, content).map_err(|e| e.to_string())?;
        // Loading or a refusal naming its layer; what matters is that nothing panics.
        match Layered::load(&Sources { explicit_file: Some(file.clone()), ..Default::default() }) {
            Err(e) if e.origin.is_empty() => Err(format!("an error with no origin: {e:?}")),
            _ => Ok(()),
        }
    });
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn fuzz_config_set() {
    let dir = std::env::temp_dir().join(format!("glovebox-config-set-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("config.toml");
    let keys = keys();
    let generate = |rng: &mut Rng| {
        let key = if rng.chance(4) { text(rng) } else { rng.pick(&keys).0.clone() };
        (key, text(rng))
    };
    run(
        "config set",
        Budget::from_env(glovebox_fuzz::DEFAULT_CASES / 2),
        generate,
        |(key, value)| {
            let _ = std::fs::remove_file(&file);
            match set_in_file(&file, key, value) {
                // What set wrote must load again: a file that no longer loads would lock the user out.
                Ok(()) => {
                    Layered::load(&Sources { user_file: Some(file.clone()), ..Default::default() })
                        .map(|_| ())
                        .map_err(|e| {
                            format!("set {key} {value:?} wrote a file that does not load: {e}")
                        })
                }
                Err(_) => Ok(()),
            }
        },
    );
    let _ = std::fs::remove_dir_all(&dir);
}
