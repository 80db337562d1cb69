//! The entry each MCP client needs to start `glovebox mcp`, in that
//! client's own format, and its addition to a client's configuration file
//! that keeps every other server (and, for TOML, every comment) as it was.

use glovebox_model::Refusal;
use serde_json::{json, Map, Value};
use std::path::{Path, PathBuf};

/// The server's name in every client's configuration.
pub const SERVER_NAME: &str = "glovebox";

/// An MCP client glovebox knows how to be added to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Client {
    /// Claude Code: `.mcp.json` in a project (or `claude mcp add`).
    ClaudeCode,
    /// Claude Desktop: `claude_desktop_config.json` in `%APPDATA%\Claude`
    /// (Windows) or `~/Library/Application Support/Claude` (macOS).
    ClaudeDesktop,
    /// Cursor: `~/.cursor/mcp.json`.
    Cursor,
    /// VS Code: `.vscode/mcp.json` in a workspace.
    Vscode,
    /// OpenAI Codex: `~/.codex/config.toml`.
    Codex,
}

/// The name glovebox is published under on PyPI and npm (`uvx glovebox-mcp`,
/// `npx -y glovebox-mcp`): `glovebox` is taken on PyPI. `packaging/` builds
/// both packages under this name; a test holds them to it.
pub const PACKAGE_NAME: &str = "glovebox-mcp";

/// What the client runs to start glovebox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Via {
    /// The installed binary, as an absolute path.
    Path(PathBuf),
    /// `uvx glovebox-mcp`: the PyPI package, fetched and cached by uv.
    Uvx,
    /// `npx -y glovebox-mcp`: the npm package, fetched and cached by npm.
    Npx,
}

/// How the client starts glovebox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub via: Via,
    pub read_only: bool,
}

impl Launch {
    /// The program the client runs.
    pub fn command(&self) -> String {
        match &self.via {
            Via::Path(program) => program.display().to_string(),
            Via::Uvx => "uvx".to_owned(),
            Via::Npx => "npx".to_owned(),
        }
    }

    /// Its arguments: the package first where a runner fetches it, then `mcp`.
    pub fn args(&self) -> Vec<String> {
        let mut args: Vec<String> = match self.via {
            Via::Path(_) => vec![],
            Via::Uvx => vec![PACKAGE_NAME.to_owned()],
            Via::Npx => vec!["-y".to_owned(), PACKAGE_NAME.to_owned()],
        };
        args.push("mcp".to_owned());
        if self.read_only {
            args.push("--read-only".into());
        }
        args
    }
}

/// Where a person's client settings live on this system.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Places {
    /// The home directory (`HOME`; `USERPROFILE` on Windows).
    pub home: PathBuf,
    /// The project or workspace a project-scoped file goes in.
    pub project: PathBuf,
    /// `$CODEX_HOME`, when set.
    pub codex_home: Option<PathBuf>,
    /// Where applications keep settings (`%APPDATA%`, `~/Library/Application
    /// Support`, `~/.config`).
    pub app_config: PathBuf,
}

impl Places {
    /// This process's places: the home and application directories as
    /// `glovebox_services::os` finds them on this system, `project` as given.
    pub fn here(project: PathBuf) -> Option<Places> {
        let home = glovebox_services::os::home_dir()?;
        let app_config =
            glovebox_services::os::app_config_dir().unwrap_or_else(|| home.join(".config"));
        let codex_home =
            std::env::var_os("CODEX_HOME").filter(|v| !v.is_empty()).map(PathBuf::from);
        Some(Places { home, project, codex_home, app_config })
    }
}

impl Client {
    /// The configuration file `--write` adds the entry to: relative ones
    /// are the project's or workspace's, others the user's (under the
    /// home, `$CODEX_HOME` for Codex, the applications' settings for Claude
    /// Desktop).
    pub fn config_file(self, places: &Places) -> PathBuf {
        match self {
            Client::ClaudeCode => places.project.join(".mcp.json"),
            Client::ClaudeDesktop => {
                places.app_config.join("Claude").join("claude_desktop_config.json")
            }
            Client::Cursor => places.home.join(".cursor").join("mcp.json"),
            Client::Vscode => places.project.join(".vscode").join("mcp.json"),
            Client::Codex => places
                .codex_home
                .clone()
                .unwrap_or_else(|| places.home.join(".codex"))
                .join("config.toml"),
        }
    }

    /// Every client, in the order setup offers them.
    pub const ALL: [Client; 5] =
        [Client::ClaudeCode, Client::ClaudeDesktop, Client::Cursor, Client::Vscode, Client::Codex];

    /// The client's name as a person knows it.
    pub fn title(self) -> &'static str {
        match self {
            Client::ClaudeCode => "Claude Code",
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Cursor => "Cursor",
            Client::Vscode => "VS Code",
            Client::Codex => "Codex",
        }
    }

    /// What shows the client is installed for this person, if anything: its command on
    /// `path` (the `PATH` directories) or its settings under the home or the
    /// applications' settings directory.
    pub fn installed(self, places: &Places, path: &[PathBuf]) -> Option<String> {
        let (command, dirs): (Option<&str>, &[&str]) = match self {
            Client::ClaudeCode => (Some("claude"), &[".claude", ".claude.json"]),
            Client::ClaudeDesktop => (None, &[]),
            Client::Cursor => (Some("cursor"), &[".cursor"]),
            Client::Vscode => (Some("code"), &[".vscode"]),
            Client::Codex => (Some("codex"), &[".codex"]),
        };
        if let Some(command) = command {
            if let Some(dir) = path.iter().find(|dir| is_command(dir, command)) {
                return Some(format!("`{command}` in {}", dir.display()));
            }
        }
        let settings = match self {
            // Claude Desktop has no command; it keeps its settings with the applications'.
            Client::ClaudeDesktop => vec![places.app_config.join("Claude")],
            _ => dirs.iter().map(|d| places.home.join(d)).collect(),
        };
        settings.into_iter().find(|p| p.exists()).map(|p| format!("{} exists", p.display()))
    }

    /// The client's own command that adds the server, where it has one.
    pub fn add_command(self, launch: &Launch) -> Option<String> {
        let words = std::iter::once(launch.command())
            .chain(launch.args())
            .map(|w| shell_word(&w))
            .collect::<Vec<_>>()
            .join(" ");
        match self {
            Client::ClaudeCode => {
                Some(format!("claude mcp add --scope user {SERVER_NAME} -- {words}"))
            }
            Client::Codex => Some(format!("codex mcp add {SERVER_NAME} -- {words}")),
            Client::ClaudeDesktop | Client::Cursor | Client::Vscode => None,
        }
    }

    /// A whole configuration document holding only glovebox's entry.
    pub fn render(self, launch: &Launch) -> String {
        match self {
            Client::Codex => {
                let mut document = toml_edit::DocumentMut::new();
                add_to_toml(&mut document, launch);
                document.to_string()
            }
            json_client => {
                let mut document = Value::Object(Map::new());
                add_to_json(json_client, &mut document, launch)
                    .expect("an empty object takes the entry");
                serde_json::to_string_pretty(&document).expect("JSON values serialise") + "\n"
            }
        }
    }

    /// `existing` (the file's text; empty when there is none) with
    /// glovebox's entry added or replaced and nothing else changed.
    /// Refused, with nothing written, when the text is not the client's format.
    pub fn merge(self, existing: &str, launch: &Launch, file: &Path) -> Result<String, Refusal> {
        let unreadable = |why: String| {
            Refusal::invalid_argument(format!(
                "{} is not a configuration this command can add to ({why}); nothing was written",
                file.display()
            ))
        };
        match self {
            Client::Codex => {
                let mut document: toml_edit::DocumentMut = existing
                    .parse()
                    .map_err(|e: toml_edit::TomlError| unreadable(e.message().to_owned()))?;
                if document.get("mcp_servers").is_some_and(|s| !s.is_table_like()) {
                    return Err(unreadable("its `mcp_servers` is not a table".into()));
                }
                add_to_toml(&mut document, launch);
                Ok(document.to_string())
            }
            json_client => {
                let mut document: Value = match existing.trim() {
                    "" => Value::Object(Map::new()),
                    text => serde_json::from_str(text).map_err(|e| unreadable(e.to_string()))?,
                };
                add_to_json(json_client, &mut document, launch).map_err(unreadable)?;
                Ok(serde_json::to_string_pretty(&document).expect("JSON values serialise") + "\n")
            }
        }
    }
}

/// Sets glovebox's entry in a JSON client's document.
fn add_to_json(client: Client, document: &mut Value, launch: &Launch) -> Result<(), String> {
    let (key, entry) = match client {
        Client::ClaudeCode => (
            "mcpServers",
            json!({"type": "stdio", "command": launch.command(), "args": launch.args()}),
        ),
        Client::ClaudeDesktop | Client::Cursor => {
            ("mcpServers", json!({"command": launch.command(), "args": launch.args()}))
        }
        Client::Vscode => (
            "servers",
            json!({"type": "stdio", "command": launch.command(), "args": launch.args()}),
        ),
        Client::Codex => unreachable!("Codex's configuration is TOML"),
    };
    let Value::Object(root) = document else { return Err("it is not a JSON object".into()) };
    let servers = root.entry(key).or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(servers) = servers else {
        return Err(format!("its `{key}` is not an object"));
    };
    servers.insert(SERVER_NAME.to_owned(), entry);
    Ok(())
}

/// Sets `[mcp_servers.glovebox]` in Codex's document.
fn add_to_toml(document: &mut toml_edit::DocumentMut, launch: &Launch) {
    let servers = document.entry("mcp_servers").or_insert_with(|| {
        let mut table = toml_edit::Table::new();
        table.set_implicit(true);
        toml_edit::Item::Table(table)
    });
    let mut entry = toml_edit::Table::new();
    entry.insert("command", toml_edit::value(launch.command()));
    entry.insert("args", toml_edit::value(launch.args().into_iter().collect::<toml_edit::Array>()));
    servers[SERVER_NAME] = toml_edit::Item::Table(entry);
}

/// Whether `dir` holds the command `name`, as the system would run it.
#[cfg(unix)]
fn is_command(dir: &Path, name: &str) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    dir.join(name).metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// On Windows a command is a file with one of `PATHEXT`'s extensions
/// (`claude.cmd`, `code.cmd`, `cursor.exe`).
#[cfg(not(unix))]
fn is_command(dir: &Path, name: &str) -> bool {
    let extensions = std::env::var("PATHEXT").unwrap_or_else(|_| ".COM;.EXE;.BAT;.CMD".into());
    extensions
        .split(';')
        .filter(|e| !e.is_empty())
        .any(|e| dir.join(format!("{name}{}", e.to_ascii_lowercase())).is_file())
}

/// `word` as one word of a POSIX shell command line.
fn shell_word(word: &str) -> String {
    if !word.is_empty() && word.chars().all(|c| c.is_ascii_alphanumeric() || "/._-+=:,".contains(c))
    {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(read_only: bool) -> Launch {
        Launch { via: Via::Path(PathBuf::from("/usr/bin/glovebox")), read_only }
    }

    #[test]
    fn each_client_gets_its_own_format() {
        let claude: Value =
            serde_json::from_str(&Client::ClaudeCode.render(&launch(false))).unwrap();
        assert_eq!(
            claude,
            json!({"mcpServers": {"glovebox": {"type": "stdio", "command": "/usr/bin/glovebox", "args": ["mcp"]}}})
        );
        let cursor: Value = serde_json::from_str(&Client::Cursor.render(&launch(true))).unwrap();
        assert_eq!(
            cursor,
            json!({"mcpServers": {"glovebox": {"command": "/usr/bin/glovebox", "args": ["mcp", "--read-only"]}}})
        );
        let vscode: Value = serde_json::from_str(&Client::Vscode.render(&launch(false))).unwrap();
        assert_eq!(vscode["servers"]["glovebox"]["type"], "stdio");
        let codex: toml::Table = toml::from_str(&Client::Codex.render(&launch(true))).unwrap();
        assert_eq!(codex["mcp_servers"]["glovebox"]["command"].as_str(), Some("/usr/bin/glovebox"));
        assert_eq!(codex["mcp_servers"]["glovebox"]["args"].as_array().unwrap().len(), 2);
        assert_eq!(
            Client::ClaudeCode.add_command(&launch(false)).unwrap(),
            "claude mcp add --scope user glovebox -- /usr/bin/glovebox mcp"
        );
        let spaced =
            Launch { via: Via::Path(PathBuf::from("/opt/my tools/glovebox")), read_only: false };
        assert_eq!(
            Client::Codex.add_command(&spaced).unwrap(),
            "codex mcp add glovebox -- '/opt/my tools/glovebox' mcp"
        );
    }

    #[test]
    fn each_client_has_its_file_in_this_systems_places() {
        // As on a Windows machine: the home is USERPROFILE's, settings are APPDATA's.
        let places = Places {
            home: PathBuf::from("C:/Users/ada"),
            project: PathBuf::from("C:/work/app"),
            codex_home: None,
            app_config: PathBuf::from("C:/Users/ada/AppData/Roaming"),
        };
        let file = |c: Client| c.config_file(&places);
        assert_eq!(
            file(Client::ClaudeDesktop),
            PathBuf::from("C:/Users/ada/AppData/Roaming/Claude/claude_desktop_config.json")
        );
        assert_eq!(file(Client::Cursor), PathBuf::from("C:/Users/ada/.cursor/mcp.json"));
        assert_eq!(file(Client::Vscode), PathBuf::from("C:/work/app/.vscode/mcp.json"));
        assert_eq!(file(Client::Codex), PathBuf::from("C:/Users/ada/.codex/config.toml"));
        let desktop: Value =
            serde_json::from_str(&Client::ClaudeDesktop.render(&launch(false))).unwrap();
        assert_eq!(
            desktop,
            json!({"mcpServers": {"glovebox": {"command": "/usr/bin/glovebox", "args": ["mcp"]}}})
        );
        assert_eq!(Client::ClaudeDesktop.add_command(&launch(false)), None);
        // Claude Desktop is found by its settings, having no command.
        let dir = std::env::temp_dir().join(format!("glovebox-places-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let found = Places { app_config: dir.clone(), ..places };
        assert_eq!(Client::ClaudeDesktop.installed(&found, &[]), None);
        std::fs::create_dir_all(dir.join("Claude")).unwrap();
        assert!(Client::ClaudeDesktop.installed(&found, &[]).unwrap().ends_with("Claude exists"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_packages_are_started_through_their_runners() {
        let uvx = Launch { via: Via::Uvx, read_only: false };
        let cursor: Value = serde_json::from_str(&Client::Cursor.render(&uvx)).unwrap();
        assert_eq!(
            cursor,
            json!({"mcpServers": {"glovebox": {"command": "uvx", "args": ["glovebox-mcp", "mcp"]}}})
        );
        let npx = Launch { via: Via::Npx, read_only: true };
        let codex: toml::Table = toml::from_str(&Client::Codex.render(&npx)).unwrap();
        assert_eq!(codex["mcp_servers"]["glovebox"]["command"].as_str(), Some("npx"));
        assert_eq!(
            codex["mcp_servers"]["glovebox"]["args"],
            toml::Value::Array(
                ["-y", "glovebox-mcp", "mcp", "--read-only"].map(toml::Value::from).to_vec()
            )
        );
        assert_eq!(
            Client::ClaudeCode.add_command(&uvx).unwrap(),
            "claude mcp add --scope user glovebox -- uvx glovebox-mcp mcp"
        );
    }

    #[test]
    fn adding_keeps_every_other_server_and_comment() {
        let file = Path::new("mcp.json");
        let existing = r#"{"mcpServers": {"other": {"command": "other-server"}}, "theme": "dark"}"#;
        let merged: Value =
            serde_json::from_str(&Client::Cursor.merge(existing, &launch(false), file).unwrap())
                .unwrap();
        assert_eq!(merged["mcpServers"]["other"], json!({"command": "other-server"}));
        assert_eq!(merged["theme"], "dark");
        assert_eq!(merged["mcpServers"]["glovebox"]["args"], json!(["mcp"]));
        // Again with --read-only: glovebox's own entry is replaced, not doubled.
        let again: Value = serde_json::from_str(
            &Client::Cursor.merge(&merged.to_string(), &launch(true), file).unwrap(),
        )
        .unwrap();
        assert_eq!(again["mcpServers"].as_object().unwrap().len(), 2);
        assert_eq!(again["mcpServers"]["glovebox"]["args"], json!(["mcp", "--read-only"]));

        let codex =
            "# my settings\nmodel = \"o4\"\n\n[mcp_servers.other]\ncommand = \"other\" # keep me\n";
        let merged = Client::Codex.merge(codex, &launch(false), Path::new("config.toml")).unwrap();
        assert!(
            merged.starts_with("# my settings\nmodel = \"o4\"\n")
                && merged.contains("command = \"other\" # keep me"),
            "{merged}"
        );
        let parsed: toml::Table = toml::from_str(&merged).unwrap();
        assert_eq!(
            parsed["mcp_servers"]["glovebox"]["args"].as_array().unwrap()[0].as_str(),
            Some("mcp")
        );
    }

    #[test]
    fn a_file_in_another_shape_is_refused_and_left_alone() {
        let file = Path::new("x");
        for bad in ["[1, 2]", "{\"servers\": []}", "not json"] {
            assert!(Client::Vscode.merge(bad, &launch(false), file).is_err(), "{bad}");
        }
        assert!(Client::Codex.merge("mcp_servers = 3", &launch(false), file).is_err());
        assert!(Client::Codex.merge("[broken", &launch(false), file).is_err());
    }
}
