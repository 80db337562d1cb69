use super::*;

#[test]
fn every_key_has_a_meaning_from_its_doc_comment() {
    let reference = reference();
    assert_eq!(reference.len(), keys().len());
    for doc in &reference {
        assert!(doc.meaning.len() > 10, "{} needs a doc comment on its field", doc.key);
    }
    let width = reference.iter().find(|d| d.key == "capture.max_width").unwrap();
    assert_eq!(width.environment, "GLOVEBOX_CAPTURE_MAX_WIDTH");
    assert!(width.meaning.starts_with("Widest image returned"), "{}", width.meaning);
}

fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("glovebox-config-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn defaults_are_off_with_1920_by_1200() {
    let layered = Layered::load(&Sources::default()).unwrap();
    assert!(!layered.config.enabled);
    assert_eq!(
        layered.config.capture_limits().unwrap(),
        CaptureLimits { max_width: 1920, max_height: 1200 }
    );
    assert_eq!(
        layered.get("capture.display").unwrap(),
        (Value::String("all".into()), Origin::Default)
    );
}

#[test]
fn layers_apply_in_order_user_project_explicit_environment() {
    let dir = temp_dir("layers");
    let (user, project, explicit) =
        (dir.join("user.toml"), dir.join("project.toml"), dir.join("explicit.toml"));
    std::fs::write(&user, "enabled = true\n[capture]\nmax_width = 800\nmax_height = 600\n")
        .unwrap();
    std::fs::write(&project, "[capture]\nmax_width = 1000\n").unwrap();
    std::fs::write(&explicit, "[capture]\nmax_height = 700\n").unwrap();
    let sources = Sources {
        user_file: Some(user.clone()),
        project_file: Some(project.clone()),
        explicit_file: Some(explicit.clone()),
        environment: vec![("GLOVEBOX_CAPTURE_MAX_HEIGHT".into(), "500".into())],
    };
    let layered = Layered::load(&sources).unwrap();
    assert!(layered.config.enabled);
    assert_eq!((layered.config.capture.max_width, layered.config.capture.max_height), (1000, 500));
    assert_eq!(layered.get("enabled").unwrap().1, Origin::File(user));
    assert_eq!(layered.get("capture.max_width").unwrap().1, Origin::File(project));
    assert_eq!(
        layered.get("capture.max_height").unwrap().1,
        Origin::Environment("GLOVEBOX_CAPTURE_MAX_HEIGHT".into())
    );
}

#[test]
fn bad_layers_are_refused_with_their_origin() {
    let dir = temp_dir("bad");
    let file = dir.join("c.toml");
    for (text, origin) in [
        // A value or key the file's own layer cannot have is blamed on the file, with the key.
        ("nonsense = 1\n", "c.toml"),
        // A check across the merged layers names the key in its sentence.
        ("[capture]\nmax_width = 0\n", "configuration"),
        ("[capture]\ndisplay = \"left\"\n", "configuration"),
        ("enabled = \"maybe\"\n", "c.toml"),
        ("[model]\nprovider = \"gpt\"\n", "c.toml"),
        ("[approval]\nmode = \"sometimes\"\n", "c.toml"),
        ("[approval]\nobserve = \"maybe\"\n", "c.toml"),
        ("[grant]\ncapture = \"pixels\"\n", "c.toml"),
        ("[deny]\nancestors = \"none\"\n", "c.toml"),
        ("enabled = \n", "c.toml"),
    ] {
        std::fs::write(&file, text).unwrap();
        let err =
            Layered::load(&Sources { explicit_file: Some(file.clone()), ..Default::default() })
                .unwrap_err();
        assert!(err.origin.contains(origin), "{text:?}: {err}");
    }
    let missing = Sources { explicit_file: Some(dir.join("absent.toml")), ..Default::default() };
    assert!(Layered::load(&missing).unwrap_err().message.contains("not found"));
    let env = Sources {
        environment: vec![("GLOVEBOX_ENABLED".into(), "perhaps".into())],
        ..Default::default()
    };
    assert_eq!(Layered::load(&env).unwrap_err().origin, "$GLOVEBOX_ENABLED");
    let typo =
        Sources { environment: vec![("GLOVEBOX_ENABLD".into(), "1".into())], ..Default::default() };
    assert!(Layered::load(&typo).is_err());
}

#[test]
fn model_is_unbound_by_default_and_bindings_are_checked() {
    let layered = Layered::load(&Sources::default()).unwrap();
    assert_eq!(
        layered.config.model.provider,
        ModelProvider::Unbound,
        "no model is bound until the user binds one"
    );
    let env = |pairs: &[(&str, &str)]| Sources {
        environment: pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        ..Default::default()
    };
    let ok = Layered::load(&env(&[
        ("GLOVEBOX_MODEL_PROVIDER", "anthropic"),
        ("GLOVEBOX_MODEL_MODEL", "claude-sonnet-4-5"),
        ("GLOVEBOX_MODEL_API_KEY_ENV", "ANTHROPIC_API_KEY"),
    ]))
    .unwrap();
    assert_eq!(ok.config.model.api_key_env, "ANTHROPIC_API_KEY");
    assert_eq!(
        ok.config.model.anthropic_tool,
        AnthropicTool::Toolset20260801,
        "the generally available toolset unless configured"
    );
    let beta =
        Layered::load(&env(&[("GLOVEBOX_MODEL_ANTHROPIC_TOOL", "computer_20250124")])).unwrap();
    assert_eq!(beta.config.model.anthropic_tool, AnthropicTool::Computer20250124);
    assert!(Layered::load(&env(&[
        ("GLOVEBOX_MODEL_PROVIDER", "gemini"),
        ("GLOVEBOX_MODEL_MODEL", "gemini-3.5-flash")
    ]))
    .is_ok());
    // A value the key's type refuses is blamed on its variable and key, not on "the configuration".
    let e = Layered::load(&env(&[("GLOVEBOX_APPROVAL_INPUT", "sometimes")])).unwrap_err();
    assert_eq!(e.origin, "$GLOVEBOX_APPROVAL_INPUT");
    assert!(e.message.starts_with("approval.input: unknown variant `sometimes`"), "{e}");
    // Set one key at a time in any order: pairs are checked at binding time.
    assert!(Layered::load(&env(&[("GLOVEBOX_MODEL_PROVIDER", "openai-compatible")])).is_ok());
    for bad in [
        vec![("GLOVEBOX_MODEL_PROVIDER", "cohere"), ("GLOVEBOX_MODEL_MODEL", "x")],
        vec![("GLOVEBOX_MODEL_ANTHROPIC_TOOL", "computer_20991231")],
        vec![("GLOVEBOX_APPROVAL_INPUT", "sometimes")],
        vec![
            ("GLOVEBOX_MODEL_PROVIDER", "openai"),
            ("GLOVEBOX_MODEL_MODEL", "gpt-5"),
            ("GLOVEBOX_MODEL_BASE_URL", "ftp://x"),
        ],
        vec![("GLOVEBOX_MODEL_TIMEOUT_SECS", "0")],
    ] {
        assert!(Layered::load(&env(&bad)).is_err(), "{bad:?}");
    }
}

#[test]
fn set_keeps_other_keys_and_refuses_unknown_keys_and_bad_values() {
    let dir = temp_dir("set");
    let file = dir.join("nested").join("config.toml");
    set_in_file(&file, "enabled", "true").unwrap();
    set_in_file(&file, "capture.max_width", "1280").unwrap();
    let layered =
        Layered::load(&Sources { user_file: Some(file.clone()), ..Default::default() }).unwrap();
    assert!(layered.config.enabled);
    assert_eq!(layered.config.capture.max_width, 1280);
    assert!(set_in_file(&file, "capture.colour", "red").is_err());
    assert!(set_in_file(&file, "capture.max_width", "0").is_err());
    assert!(set_in_file(&file, "capture.max_width", "wide").is_err());
    let after = Layered::load(&Sources { user_file: Some(file), ..Default::default() }).unwrap();
    assert_eq!(after.config.capture.max_width, 1280, "refused sets change nothing");
}

#[test]
fn a_config_file_that_is_a_fifo_or_huge_is_an_error_not_a_hang() {
    let dir = temp_dir("fifo");
    let fifo = dir.join("config.toml");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.unwrap().success(), "mkfifo (coreutils)");
    let huge = dir.join("huge.toml");
    std::fs::write(&huge, "#".repeat(2 << 20)).unwrap();
    // A dotfiles manager's link to a real file is still read.
    let real = dir.join("real.toml");
    std::fs::write(&real, "enabled = true\n").unwrap();
    let linked = dir.join("linked.toml");
    std::os::unix::fs::symlink(&real, &linked).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let files = [fifo.clone(), huge.clone(), linked.clone()];
    std::thread::spawn(move || {
        let _ = tx.send(files.map(|file| {
            Layered::load(&Sources { user_file: Some(file), ..Default::default() })
                .map(|l| l.config.enabled)
        }));
    });
    let loaded =
        rx.recv_timeout(std::time::Duration::from_secs(10)).expect("a FIFO config.toml hung");
    let [from_fifo, from_huge, from_link] = loaded;
    let e = from_fifo.unwrap_err();
    assert_eq!(
        (e.origin.as_str(), e.message.as_str()),
        (fifo.to_str().unwrap(), "not a regular file")
    );
    assert_eq!(from_huge.unwrap_err().message, format!("larger than {MAX_CONFIG_BYTES} bytes"));
    assert!(from_link.unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_configuration_directory_is_named_by_one_rule() {
    let dir = |vars: &[(&str, &str)]| {
        let vars: Vec<(String, String)> =
            vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        config_dir_from(|name| {
            vars.iter().find(|(k, _)| k == name).map(|(_, v)| std::ffi::OsString::from(v))
        })
    };
    let all = [
        ("GLOVEBOX_CONFIG_HOME", "/keep/glovebox"),
        ("XDG_CONFIG_HOME", "/sandbox/config"),
        ("HOME", "/home/ada"),
    ];
    assert_eq!(dir(&all), Some(PathBuf::from("/keep/glovebox")), "the directory itself");
    assert_eq!(dir(&all[1..]), Some(PathBuf::from("/sandbox/config/glovebox")));
    assert_eq!(dir(&all[2..]), Some(PathBuf::from("/home/ada/.config/glovebox")));
    let empty = [("GLOVEBOX_CONFIG_HOME", ""), ("XDG_CONFIG_HOME", ""), ("HOME", "/home/ada")];
    assert_eq!(dir(&empty), Some(PathBuf::from("/home/ada/.config/glovebox")), "empty is unset");
    assert_eq!(dir(&[]), None);
    // It names a directory, not a key: the environment layer lets it pass.
    let named = Sources {
        environment: vec![("GLOVEBOX_CONFIG_HOME".into(), "/keep/glovebox".into())],
        ..Default::default()
    };
    assert!(Layered::load(&named).is_ok());
}
