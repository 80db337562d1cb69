//! What a Wayland compositor needs from the person before glovebox may
//! list its windows and read their pixels, each shown and asked first,
//! each undone with `--undo`. glovebox never grants itself either.
//!
//! `glovebox setup kde-screenshots`: KWin answers
//! `org.kde.KWin.ScreenShot2` only to programs whose desktop file lists it
//! in `X-KDE-DBUS-Restricted-Interfaces`. The `.deb` installs one for
//! `/usr/bin/glovebox`; this writes one for the running program (a
//! `cargo install`, a wheel, an npm package) into the person's own
//! applications directory, shown and asked first, and removes it with
//! `--undo`.
//!
//! `glovebox setup gnome-extension`: GNOME Shell lists windows to no
//! ordinary client, so glovebox's extension (shipped inside the binary)
//! is installed for this user and enabled, answering only the programs
//! in its `allowed` file (this one is added). GNOME Shell on Wayland
//! loads a new extension at the next login.

use super::exit::Failure;
use super::terminal::confirm;
use anyhow::Context as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// `$XDG_DATA_HOME` (or `~/.local/share`).
fn data_home() -> Result<PathBuf, Failure> {
    Ok(std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .context("neither XDG_DATA_HOME nor HOME is set")?)
}

/// `$XDG_DATA_HOME/applications/glovebox-screenshots.desktop`.
fn desktop_file() -> Result<PathBuf, Failure> {
    Ok(data_home()?.join("applications/glovebox-screenshots.desktop"))
}

/// This program's canonical path: what a compositor checks callers by.
fn this_program() -> Result<PathBuf, Failure> {
    Ok(std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .context("finding this program's path")?)
}

/// KDE's service cache, rebuilt so KWin sees the change at once.
fn rebuild_service_cache() {
    let _ = std::process::Command::new("kbuildsycoca5")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status();
}

pub fn kde_screenshots(undo: bool, yes: bool) -> Result<ExitCode, Failure> {
    let file = desktop_file()?;
    if undo {
        if !file.exists() {
            println!("nothing to undo: {} does not exist", file.display());
            return Ok(ExitCode::SUCCESS);
        }
        println!("glovebox setup kde-screenshots --undo removes {}", file.display());
        confirm("Remove it?", yes)?;
        std::fs::remove_file(&file).with_context(|| format!("removing {}", file.display()))?;
        rebuild_service_cache();
        println!("removed; KWin refuses this program's screenshots again");
        return Ok(ExitCode::SUCCESS);
    }
    let program = this_program()?;
    let text = glovebox_sandbox::kde::screenshot_desktop_file(&program);
    if std::fs::read_to_string(&file).is_ok_and(|now| now == text) {
        println!(
            "{} already lets {} take screenshots; nothing to change",
            file.display(),
            program.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    print!(
        "glovebox setup kde-screenshots would write {} (KWin then answers org.kde.KWin.ScreenShot2 to {}; any program run from that path could take screenshots):\n\n{text}\n",
        file.display(),
        program.display()
    );
    confirm("Write it?", yes)?;
    if let Some(dir) = file.parent() {
        glovebox_platform::files::make_dirs(dir)
            .with_context(|| format!("making {}", dir.display()))?;
    }
    glovebox_platform::files::write_private(&file, text.as_bytes())
        .with_context(|| format!("writing {}", file.display()))?;
    rebuild_service_cache();
    println!("written; undo with `glovebox setup kde-screenshots --undo`");
    Ok(ExitCode::SUCCESS)
}

/// GNOME Shell's list of enabled extensions, through `gsettings`.
fn enabled_extensions() -> Result<Vec<String>, Failure> {
    let out = std::process::Command::new("gsettings")
        .args(["get", "org.gnome.shell", "enabled-extensions"])
        .stdin(std::process::Stdio::null())
        .output()
        .context("running gsettings (Debian package libglib2.0-bin)")?;
    if !out.status.success() {
        return Err(anyhow::anyhow!(
            "gsettings get org.gnome.shell enabled-extensions: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    // A GVariant string array: "@as []" or "['a', 'b']".
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .split('\'')
        .enumerate()
        .filter(|(i, _)| i % 2 == 1)
        .map(|(_, s)| s.to_owned())
        .collect())
}

fn set_enabled_extensions(list: &[String]) -> Result<(), Failure> {
    let value =
        format!("[{}]", list.iter().map(|u| format!("'{u}'")).collect::<Vec<_>>().join(", "));
    let status = std::process::Command::new("gsettings")
        .args(["set", "org.gnome.shell", "enabled-extensions", &value])
        .stdin(std::process::Stdio::null())
        .status()
        .context("running gsettings")?;
    if !status.success() {
        return Err(anyhow::anyhow!(
            "gsettings set org.gnome.shell enabled-extensions {value} failed"
        )
        .into());
    }
    Ok(())
}

pub fn gnome_extension(undo: bool, yes: bool) -> Result<ExitCode, Failure> {
    use glovebox_linux::wayland::{ALLOWED_FILE, EXTENSION_FILES, EXTENSION_UUID};
    let dir = data_home()?.join("gnome-shell/extensions").join(EXTENSION_UUID);
    let enabled = enabled_extensions()?;
    if undo {
        let listed = enabled.iter().any(|u| u == EXTENSION_UUID);
        if !dir.exists() && !listed {
            println!("nothing to undo: glovebox's GNOME Shell extension is not installed");
            return Ok(ExitCode::SUCCESS);
        }
        println!(
            "glovebox setup gnome-extension --undo removes {} and takes {EXTENSION_UUID} out of org.gnome.shell enabled-extensions",
            dir.display()
        );
        confirm("Remove it?", yes)?;
        set_enabled_extensions(
            &enabled.into_iter().filter(|u| u != EXTENSION_UUID).collect::<Vec<_>>(),
        )?;
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("removing {}", dir.display()))?;
        }
        println!("removed; GNOME Shell stops serving glovebox at once");
        return Ok(ExitCode::SUCCESS);
    }
    let program = this_program()?;
    let allowed_file = dir.join(ALLOWED_FILE);
    let mut allowed: Vec<String> = std::fs::read_to_string(&allowed_file)
        .unwrap_or_default()
        .lines()
        .map(|l| l.trim().to_owned())
        .filter(|l| l.starts_with('/'))
        .collect();
    let program_line = program.to_string_lossy().into_owned();
    let current = EXTENSION_FILES
        .iter()
        .all(|(name, text)| std::fs::read_to_string(dir.join(name)).is_ok_and(|now| now == *text));
    let is_enabled = enabled.iter().any(|u| u == EXTENSION_UUID);
    if current && is_enabled && allowed.contains(&program_line) {
        println!("glovebox's GNOME Shell extension is installed, enabled and answers {program_line}; nothing to change");
        return Ok(ExitCode::SUCCESS);
    }
    if !allowed.contains(&program_line) {
        allowed.push(program_line.clone());
    }
    println!("glovebox setup gnome-extension would:");
    println!(
        "1. write glovebox's GNOME Shell extension ({}) into {}",
        EXTENSION_FILES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", "),
        dir.display()
    );
    println!(
        "2. write {} listing the programs it answers: {}",
        allowed_file.display(),
        allowed.join(", ")
    );
    if !is_enabled {
        println!("3. add {EXTENSION_UUID} to org.gnome.shell enabled-extensions");
    }
    println!("The extension serves your window list, each window drawn alone and the screen to those programs only; it sends no input. GNOME Shell on Wayland loads it at your next login.");
    confirm("Make these changes?", yes)?;
    glovebox_platform::files::make_dirs(&dir)
        .with_context(|| format!("making {}", dir.display()))?;
    for (name, text) in EXTENSION_FILES {
        glovebox_platform::files::write_private(&dir.join(name), text.as_bytes())
            .with_context(|| format!("writing {name}"))?;
    }
    glovebox_platform::files::write_private(
        &allowed_file,
        format!("{}\n", allowed.join("\n")).as_bytes(),
    )
    .with_context(|| format!("writing {}", allowed_file.display()))?;
    if !is_enabled {
        let mut enabled = enabled;
        enabled.push(EXTENSION_UUID.to_owned());
        set_enabled_extensions(&enabled)?;
    }
    println!("done; log out and in (GNOME on Wayland), then `glovebox doctor`; undo with `glovebox setup gnome-extension --undo`");
    Ok(ExitCode::SUCCESS)
}
