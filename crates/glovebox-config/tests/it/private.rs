//! `glovebox config set` writes a file only its user can read: the
//! configuration can hold `serve.token`, the bearer token of `glovebox serve`.
#![cfg(unix)]

use glovebox_config::set_in_file;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn a_set_file_is_0600_in_a_new_0700_directory_whatever_the_umask() {
    // The umask most users have: a plainly written file is 0644 under it.
    rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o022));
    let home = std::env::temp_dir().join(format!("glovebox-config-private-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&home);
    let file = home.join(".config/glovebox/config.toml");
    set_in_file(&file, "serve.token", "a-token-of-twenty-chars").unwrap();
    assert_eq!(mode(&file), 0o600);
    assert_eq!(mode(file.parent().unwrap()), 0o700);
    // One the user made readable before (or an older glovebox did) is 0600 once set.
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    set_in_file(&file, "enabled", "true").unwrap();
    assert_eq!(mode(&file), 0o600);
    assert!(
        std::fs::read_to_string(&file).unwrap().contains("a-token-of-twenty-chars"),
        "other keys are kept"
    );
    std::fs::remove_dir_all(&home).unwrap();
}
