//! `glovebox setup kde-screenshots`: KWin answers
//! `org.kde.KWin.ScreenShot2` only to programs whose desktop file lists it
//! in `X-KDE-DBUS-Restricted-Interfaces`. The `.deb` installs one for
//! `/usr/bin/glovebox`; this writes one for the running program (a
//! `cargo install`, a wheel, an npm package) into the person's own
//! applications directory, shown and asked first, and removes it with
//! `--undo`. glovebox never writes it on its own.

use super::exit::Failure;
use super::setup_accessibility::confirm;
use anyhow::Context as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// `$XDG_DATA_HOME/applications/glovebox-screenshots.desktop`.
fn desktop_file() -> Result<PathBuf, Failure> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .context("neither XDG_DATA_HOME nor HOME is set")?;
    Ok(data.join("applications/glovebox-screenshots.desktop"))
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
    let program = std::env::current_exe()
        .and_then(std::fs::canonicalize)
        .context("finding this program's path")?;
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
