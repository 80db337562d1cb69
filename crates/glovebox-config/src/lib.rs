//! glovebox's configuration (DESIGN.md §9): TOML layered as built-in
//! defaults < `~/.config/glovebox/config.toml` < `./.glovebox.toml` <
//! `--config FILE` < `GLOVEBOX_*` environment, typed and validated once.
//!
//! Keys are dotted paths (`capture.max_width`); the environment form is the
//! upper-cased path with `_` for `.` (`GLOVEBOX_CAPTURE_MAX_WIDTH`).
#![forbid(unsafe_code)]

use glovebox_model::{
    AncestorRule, ApprovalMode, CaptureLimits, CaptureMode, DisplayBackend, DisplaySelection,
    Policy, Refusal, TextRecording,
};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// The effective configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Computer use is off until the user turns it on.
    pub enabled: bool,
    /// Refuse every input; observation only.
    pub read_only: bool,
    /// Draw the agent's cursor (a click-through overlay) where a display allows it.
    pub overlay: bool,
    /// `auto`, `x11` or `wayland`: which display server to drive.
    pub backend: DisplayBackend,
    pub capture: CaptureConfig,
    pub grant: GrantConfig,
    pub deny: DenyConfig,
    pub input: InputConfig,
    pub observe: ObserveConfig,
    pub approval: ApprovalConfig,
    pub serve: ServeConfig,
    pub mcp: McpConfig,
    pub model: ModelConfig,
    pub recording: RecordingConfig,
    pub episode: EpisodeConfig,
}

/// Running episodes (`glovebox episode`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EpisodeConfig {
    /// The Python with OSWorld's `desktop-env` that scores OSWorld-format tasks
    /// (the full image puts one here; `.ci/install-deps` makes `target/osworld-venv`).
    pub osworld_python: String,
}

/// Each grant's delivered actions, kept as an element-addressed script that
/// `glovebox replay` runs again ([replay.md](../../docs/replay.md)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordingConfig {
    /// Record into `$XDG_STATE_HOME/glovebox/recordings`.
    pub enabled: bool,
    /// `length` (typed text as its length, like the audit) or `kept` (the
    /// text itself, never a password field's).
    pub text: TextRecording,
}

/// The model the instruction-level loop (`computer`, `glovebox run`) uses.
/// Nothing is bound by default, and nothing is ever chosen silently.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    /// `openai` (Responses API), `anthropic` (Messages API), `gemini`
    /// (Gemini API `generateContent`),
    /// `openai-compatible` (Chat Completions: Ollama, vLLM, LM Studio),
    /// `mcp-sampling` (the MCP client's model, under `glovebox mcp` only), or
    /// empty: unbound.
    pub provider: ModelProvider,
    /// The provider's model name, e.g. `claude-sonnet-4-5` or `gpt-5`.
    pub model: String,
    /// Overrides the provider's endpoint base; required for `openai-compatible`.
    pub base_url: String,
    /// The name of the environment variable holding the API key (e.g.
    /// `ANTHROPIC_API_KEY`; never the key itself, and not a `GLOVEBOX_*`
    /// name); empty: no key is sent.
    pub api_key_env: String,
    /// The model takes images; `false` sends the accessibility tree alone.
    pub images: bool,
    /// Seconds one request may take.
    pub timeout_secs: u64,
    /// Extra attempts on 429, 5xx and timeouts, with exponential backoff.
    pub max_retries: u32,
    /// The model has native computer use (OpenAI GA `computer`, Anthropic
    /// `computer_2025…`): it gets that tool, run through glovebox-wire's
    /// executors. Only for `openai`, `anthropic` and `gemini`; never inferred.
    pub native: bool,
    /// The Anthropic tool a native run declares: the generally available
    /// toolset (default) or the older single beta tool. Chosen here, never
    /// from the model's name.
    pub anthropic_tool: AnthropicTool,
}

/// The Anthropic computer-use contracts `model.anthropic_tool` names.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
pub enum AnthropicTool {
    #[default]
    #[serde(rename = "computer_toolset_20260801")]
    Toolset20260801,
    #[serde(rename = "computer_20250124")]
    Computer20250124,
}

/// The providers `model.provider` accepts; empty: unbound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ModelProvider {
    #[serde(rename = "")]
    Unbound,
    Openai,
    Anthropic,
    Gemini,
    OpenaiCompatible,
    McpSampling,
}

impl std::fmt::Display for ModelProvider {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ModelProvider::Unbound => "",
            ModelProvider::Openai => "openai",
            ModelProvider::Anthropic => "anthropic",
            ModelProvider::Gemini => "gemini",
            ModelProvider::OpenaiCompatible => "openai-compatible",
            ModelProvider::McpSampling => "mcp-sampling",
        })
    }
}

/// How the MCP server returns screenshots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct McpConfig {
    /// Write screenshots to files under the runtime directory and return a
    /// `file://` resource link instead of inline image bytes (large inline
    /// images slow some clients down).
    pub screenshot_files: bool,
}

/// `glovebox serve` (streamable HTTP on 127.0.0.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ServeConfig {
    /// 0 picks a free port.
    pub port: u16,
    /// The bearer token clients must send; empty: a new one per run, printed at start.
    pub token: String,
}

/// Who approves what (DESIGN.md §7): classes observe / input / foreground,
/// each `allow`, `prompt` or `deny`; `mode` is a shorthand that sets them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ApprovalConfig {
    /// `write` (observe allow, input and foreground prompt), `yolo` (all
    /// allow), `always-ask` (all prompt) or `custom` (the three keys below).
    pub mode: ApprovalMode,
    /// In `custom` mode: `allow`, `prompt` or `deny` for observing.
    pub observe: Policy,
    /// In `custom` mode: `allow`, `prompt` or `deny` for input.
    pub input: Policy,
    /// In `custom` mode: `allow`, `prompt` or `deny` for foreground delivery.
    pub foreground: Policy,
    /// Input on an element whose name has a word starting with one of these
    /// escalates to `prompt` whatever the class says; empty: never.
    pub consequential: Vec<String>,
    /// How long a question asked across calls (MCP 2026-07-28) waits for
    /// the client's retry with the user's answer; after it the call is
    /// refused, nothing delivered.
    pub answer_wait_secs: u64,
}

/// Words that mark consequential buttons, in several languages.
pub const CONSEQUENTIAL_TERMS: &[&str] = &[
    "send",
    "submit",
    "post",
    "publish",
    "buy",
    "pay",
    "purchase",
    "order",
    "checkout",
    "delete",
    "remove",
    "transfer",
    "allow",
    "accept",
    "confirm",
    "senden",
    "absenden",
    "kaufen",
    "bezahlen",
    "bestellen",
    "löschen",
    "entfernen",
    "überweisen",
    "erlauben",
    "akzeptieren",
    "bestätigen",
    "envoyer",
    "acheter",
    "payer",
    "commander",
    "supprimer",
    "virement",
    "autoriser",
    "accepter",
    "publier",
    "confirmer",
    "enviar",
    "comprar",
    "pagar",
    "pedido",
    "eliminar",
    "borrar",
    "transferir",
    "permitir",
    "aceptar",
    "publicar",
    "confirmar",
];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InputConfig {
    /// Calls may ask for foreground delivery: the target is activated and the
    /// user's real pointer and keyboard act, then are put back.
    pub foreground: bool,
    /// `open_url` may open addresses other than http and https (`file:`,
    /// and other schemes that reach local files and programs).
    #[serde(default)]
    pub local_urls: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrantConfig {
    /// Input actions a grant may take (1..=10000).
    pub budget: u32,
    /// Seconds without a call after which a grant expires.
    pub idle_expiry_secs: u64,
    /// `a11y-and-pixels`, or `a11y-only`: no screenshots.
    pub capture: CaptureMode,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DenyConfig {
    /// Applications never to act on (WM_CLASS, executable name or path; `*`
    /// wildcards; comma-separated in the environment). Added to the built-in
    /// credential entries, which cannot be removed.
    pub apps: Vec<String>,
    /// `ancestors`, or `ancestors-and-their-children` (wider; never narrower).
    pub ancestors: AncestorRule,
}

/// What observations return by default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ObserveConfig {
    /// An input's result carries the new screenshot too (when the grant
    /// allows pixels), not only what changed in the tree.
    pub screenshot_after_input: bool,
    /// The text tree of one observation is folded to fit this many
    /// tokens (estimated at four characters each); 200..=200000.
    pub max_tokens: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CaptureConfig {
    /// Widest image returned (1..=32767); larger captures are scaled down, never up.
    pub max_width: u32,
    /// Tallest image returned (1..=32767).
    pub max_height: u32,
    /// The display a desktop capture covers by default: `all` or an id from a frame's display list.
    pub display: String,
}

impl Default for Config {
    fn default() -> Self {
        let limits = CaptureLimits::default();
        Config {
            enabled: false,
            read_only: false,
            overlay: true,
            backend: DisplayBackend::Auto,
            capture: CaptureConfig {
                max_width: limits.max_width,
                max_height: limits.max_height,
                display: "all".into(),
            },
            grant: GrantConfig {
                budget: 50,
                idle_expiry_secs: 900,
                capture: CaptureMode::A11yAndPixels,
            },
            deny: DenyConfig { apps: vec![], ancestors: AncestorRule::Ancestors },
            input: InputConfig { foreground: false, local_urls: false },
            observe: ObserveConfig { screenshot_after_input: false, max_tokens: 8_000 },
            approval: ApprovalConfig {
                mode: ApprovalMode::Write,
                observe: Policy::Allow,
                input: Policy::Prompt,
                foreground: Policy::Prompt,
                consequential: CONSEQUENTIAL_TERMS.iter().map(|t| t.to_string()).collect(),
                answer_wait_secs: 300,
            },
            serve: ServeConfig { port: 8750, token: String::new() },
            mcp: McpConfig { screenshot_files: false },
            model: ModelConfig {
                provider: ModelProvider::Unbound,
                model: String::new(),
                base_url: String::new(),
                api_key_env: String::new(),
                images: true,
                timeout_secs: 60,
                max_retries: 2,
                native: false,
                anthropic_tool: AnthropicTool::Toolset20260801,
            },
            recording: RecordingConfig { enabled: true, text: TextRecording::Length },
            episode: EpisodeConfig {
                osworld_python: "/usr/lib/glovebox/osworld/bin/python3".into(),
            },
        }
    }
}

impl Config {
    pub fn capture_limits(&self) -> Result<CaptureLimits, Refusal> {
        CaptureLimits::new(self.capture.max_width, self.capture.max_height)
    }

    pub fn text_budget(&self) -> Result<glovebox_model::TokenBudget, Refusal> {
        glovebox_model::TokenBudget::new(self.observe.max_tokens)
    }

    pub fn display_selection(&self) -> Result<DisplaySelection, Refusal> {
        self.capture.display.parse()
    }

    fn validate(&self) -> Result<(), String> {
        // The sentences name the keys: the merged layers have no single origin to blame.
        CaptureLimits::new(self.capture.max_width, 1)
            .map_err(|r| format!("capture.max_width: {}", r.message))?;
        CaptureLimits::new(1, self.capture.max_height)
            .map_err(|r| format!("capture.max_height: {}", r.message))?;
        self.display_selection().map_err(|r| format!("capture.display: {}", r.message))?;
        self.text_budget().map_err(|r| format!("observe.max_tokens: {}", r.message))?;
        if !(1..=10_000).contains(&self.grant.budget) {
            return Err(format!("grant.budget {} is outside 1..=10000", self.grant.budget));
        }
        if !(1..=86_400).contains(&self.grant.idle_expiry_secs) {
            return Err(format!(
                "grant.idle_expiry_secs {} is outside 1..=86400",
                self.grant.idle_expiry_secs
            ));
        }
        if !(1..=3_600).contains(&self.approval.answer_wait_secs) {
            return Err(format!(
                "approval.answer_wait_secs {} is outside 1..=3600",
                self.approval.answer_wait_secs
            ));
        }
        if !self.serve.token.is_empty() && self.serve.token.len() < 16 {
            return Err(
                "serve.token must be at least 16 characters (or empty for a new one per run)"
                    .into(),
            );
        }
        let model = &self.model;
        // Keys that only make sense together (provider and model, a base URL
        // for openai-compatible, native with openai/anthropic) are checked
        // when the model is bound, so `config set` works in any order.
        if !model.base_url.is_empty()
            && !model.base_url.starts_with("http://")
            && !model.base_url.starts_with("https://")
        {
            return Err(format!("model.base_url {:?} is not an http(s) URL", model.base_url));
        }
        if !(1..=600).contains(&model.timeout_secs) {
            return Err(format!("model.timeout_secs {} is outside 1..=600", model.timeout_secs));
        }
        if model.max_retries > 10 {
            return Err(format!("model.max_retries {} is outside 0..=10", model.max_retries));
        }
        Ok(())
    }
}

/// A configuration that could not be read, parsed or validated.
#[derive(Debug, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct ConfigError {
    /// The layer at fault: a file path, an environment variable, or a key.
    pub origin: String,
    pub message: String,
}

impl From<ConfigError> for Refusal {
    fn from(e: ConfigError) -> Refusal {
        Refusal::invalid_argument(format!("configuration {e}"))
    }
}

/// Which layer a key's effective value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Default,
    File(PathBuf),
    Environment(String),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File(path) => write!(f, "{}", path.display()),
            Origin::Environment(name) => write!(f, "${name}"),
        }
    }
}

/// Where the layers are read from.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    pub user_file: Option<PathBuf>,
    pub project_file: Option<PathBuf>,
    pub explicit_file: Option<PathBuf>,
    pub environment: Vec<(String, String)>,
}

impl Sources {
    /// The standard layers of this process: [`user_config_dir`], the current
    /// directory, `explicit` and the `GLOVEBOX_*` environment.
    pub fn standard(explicit: Option<PathBuf>) -> Sources {
        Sources {
            user_file: user_config_dir().map(|dir| dir.join("config.toml")),
            project_file: Some(PathBuf::from(".glovebox.toml")),
            explicit_file: explicit,
            environment: std::env::vars().filter(|(k, _)| k.starts_with("GLOVEBOX_")).collect(),
        }
    }
}

/// glovebox's configuration directory for this user, where `config.toml`
/// and `guidance/` are: `$GLOVEBOX_CONFIG_HOME` (the directory itself) when
/// set and not empty, else `$XDG_CONFIG_HOME/glovebox`, else
/// `$HOME/.config/glovebox`; `None` when none of them is set. The first is
/// for programs run where `XDG_CONFIG_HOME` is another's (`glovebox sandbox`
/// gives its desktop a configuration directory of its own) that are to keep
/// the person's glovebox configuration.
pub fn user_config_dir() -> Option<PathBuf> {
    config_dir_from(|name| std::env::var_os(name))
}

/// [`user_config_dir`] from the variables `var` reads.
fn config_dir_from(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    set(CONFIG_HOME_ENV)
        .or_else(|| set("XDG_CONFIG_HOME").map(|dir| dir.join("glovebox")))
        .or_else(|| set("HOME").map(|home| home.join(".config").join("glovebox")))
}

/// The variable that names glovebox's configuration directory itself ([`user_config_dir`]).
pub const CONFIG_HOME_ENV: &str = "GLOVEBOX_CONFIG_HOME";

/// Most bytes a configuration file may hold: far past any real one, short of
/// what would hang or exhaust a command that reads it.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Every key with its default value, in dotted form.
pub fn keys() -> Vec<(String, Value)> {
    let mut out = vec![];
    flatten("", &defaults_table(), &mut out);
    out
}

/// One configuration key as the reference documents it: the meaning is the
/// field's own doc comment, so the reference cannot drift from the code.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyDoc {
    pub key: String,
    pub default: Value,
    pub environment: String,
    pub meaning: String,
}

/// Every key with its default, environment name and meaning.
pub fn reference() -> Vec<KeyDoc> {
    let schema = schemars::schema_for!(Config).to_value();
    keys()
        .into_iter()
        .map(|(key, default)| {
            let meaning = meaning_of(&schema, &key).unwrap_or_default();
            KeyDoc { environment: env_name(&key), key, default, meaning }
        })
        .collect()
}

/// The description schemars took from the doc comment of `key`'s field.
fn meaning_of(schema: &serde_json::Value, key: &str) -> Option<String> {
    let mut node = schema;
    let mut field = None;
    for part in key.split('.') {
        if let Some(name) =
            node.get("$ref").and_then(|r| r.as_str()).and_then(|r| r.strip_prefix("#/$defs/"))
        {
            node = schema.get("$defs")?.get(name)?;
        }
        field = node.get("properties")?.get(part);
        node = field?;
    }
    let text = field?.get("description")?.as_str()?;
    Some(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

fn defaults_table() -> Table {
    Table::try_from(Config::default()).expect("defaults serialise")
}

fn flatten(prefix: &str, table: &Table, out: &mut Vec<(String, Value)>) {
    for (k, v) in table {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            Value::Table(inner) => flatten(&key, inner, out),
            other => out.push((key, other.clone())),
        }
    }
}

fn env_name(key: &str) -> String {
    format!("GLOVEBOX_{}", key.replace('.', "_").to_uppercase())
}

/// Parses `text` as a value of the same TOML type as `like`.
fn parse_like(like: &Value, text: &str) -> Result<Value, String> {
    match like {
        Value::Boolean(_) => match text.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Ok(Value::Boolean(true)),
            "false" | "0" | "no" | "off" => Ok(Value::Boolean(false)),
            _ => Err(format!("{text:?} is not a boolean (true/false)")),
        },
        Value::Integer(_) => text
            .trim()
            .parse::<i64>()
            .map(Value::Integer)
            .map_err(|_| format!("{text:?} is not an integer")),
        // Lists are written comma-separated in the environment and on the command line.
        Value::Array(_) => Ok(Value::Array(
            text.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| Value::String(s.to_owned()))
                .collect(),
        )),
        _ => Ok(Value::String(text.to_owned())),
    }
}

fn merge(base: &mut Table, layer: &Table) {
    for (k, v) in layer {
        match (base.get_mut(k), v) {
            (Some(Value::Table(b)), Value::Table(l)) => merge(b, l),
            _ => {
                base.insert(k.clone(), v.clone());
            }
        }
    }
}

/// The file at `path` as a table; `None` when there is none. A link is
/// followed (a dotfiles manager may have made one), but only a regular file
/// under [`MAX_CONFIG_BYTES`] is read: a FIFO there is an error, not a hang.
fn read_table(path: &Path) -> Result<Option<Table>, ConfigError> {
    use glovebox_platform::files::{read_regular_text, Links};
    let text = match read_regular_text(path, MAX_CONFIG_BYTES, Links::Follow) {
        Ok(text) => text,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => {
            return Err(ConfigError { origin: path.display().to_string(), message: e.to_string() })
        }
    };
    text.parse::<Table>()
        .map(Some)
        .map_err(|e| ConfigError { origin: path.display().to_string(), message: e.to_string() })
}

fn lookup<'a>(table: &'a Table, key: &str) -> Option<&'a Value> {
    let mut parts = key.split('.');
    let mut value = table.get(parts.next()?)?;
    for part in parts {
        value = value.as_table()?.get(part)?;
    }
    Some(value)
}

/// The layer and key a merged configuration fails to read on: each layer
/// is tried on its own over the defaults, so the error names the file or
/// variable and the key (`$GLOVEBOX_APPROVAL_INPUT: approval.input: unknown
/// variant …`) rather than only what the merge disliked.
fn culprit(layers: &[(Origin, Table)]) -> Option<ConfigError> {
    let defaults = defaults_table();
    for (origin, table) in layers.iter().skip(1) {
        let mut leaves = vec![];
        flatten("", table, &mut leaves);
        for (key, value) in leaves {
            let mut alone = defaults.clone();
            let mut one = Table::new();
            set_path(&mut one, &key, value);
            merge(&mut alone, &one);
            if let Err(e) = Config::try_from_table(alone) {
                return Some(ConfigError {
                    origin: origin.to_string(),
                    message: format!("{key}: {}", e.message()),
                });
            }
        }
    }
    None
}

impl Config {
    fn try_from_table(table: Table) -> Result<Config, toml::de::Error> {
        Value::Table(table).try_into()
    }
}

/// The loaded layers, kept so `config get` can say where a value came from.
#[derive(Debug, Clone)]
pub struct Layered {
    layers: Vec<(Origin, Table)>,
    pub config: Config,
}

impl Layered {
    /// Reads every layer, merges and validates. An explicit `--config` file
    /// must exist; the user and project files are optional.
    pub fn load(sources: &Sources) -> Result<Layered, ConfigError> {
        let mut layers = vec![(Origin::Default, defaults_table())];
        for (path, required) in [
            (&sources.user_file, false),
            (&sources.project_file, false),
            (&sources.explicit_file, true),
        ] {
            let Some(path) = path else { continue };
            match read_table(path)? {
                Some(table) => layers.push((Origin::File(path.clone()), table)),
                None if required => {
                    return Err(ConfigError {
                        origin: path.display().to_string(),
                        message: "file not found".into(),
                    })
                }
                None => {}
            }
        }
        let known = keys();
        for (name, text) in &sources.environment {
            let Some((key, like)) = known.iter().find(|(key, _)| env_name(key) == *name) else {
                if name.starts_with("GLOVEBOX_") && !NON_CONFIG_ENV.contains(&name.as_str()) {
                    return Err(ConfigError {
                        origin: format!("${name}"),
                        message: "is not a configuration key".into(),
                    });
                }
                continue;
            };
            let value = parse_like(like, text)
                .map_err(|message| ConfigError { origin: format!("${name}"), message })?;
            let mut table = Table::new();
            set_path(&mut table, key, value);
            layers.push((Origin::Environment(name.clone()), table));
        }
        let mut merged = Table::new();
        for (_, table) in &layers {
            merge(&mut merged, table);
        }
        let config: Config = Value::Table(merged).try_into().map_err(|e: toml::de::Error| {
            culprit(&layers).unwrap_or_else(|| ConfigError {
                origin: "configuration".into(),
                message: e.message().to_owned(),
            })
        })?;
        config
            .validate()
            .map_err(|message| ConfigError { origin: "configuration".into(), message })?;
        Ok(Layered { layers, config })
    }

    /// The effective value of `key` and the layer that set it.
    pub fn get(&self, key: &str) -> Result<(Value, Origin), ConfigError> {
        if !keys().iter().any(|(k, _)| k == key) {
            return Err(unknown_key(key));
        }
        self.layers
            .iter()
            .rev()
            .find_map(|(origin, table)| lookup(table, key).map(|v| (v.clone(), origin.clone())))
            .ok_or_else(|| unknown_key(key))
    }
}

/// Variables with the prefix that are not configuration keys.
const NON_CONFIG_ENV: &[&str] =
    &["GLOVEBOX_FIXTURE_STATE", "GLOVEBOX_FIXTURE_CONTROL", "GLOVEBOX_LOG", CONFIG_HOME_ENV];

fn unknown_key(key: &str) -> ConfigError {
    let known: Vec<_> = keys().into_iter().map(|(k, _)| k).collect();
    ConfigError {
        origin: key.to_owned(),
        message: format!("unknown key; known keys: {}", known.join(", ")),
    }
}

fn set_path(table: &mut Table, key: &str, value: Value) {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop().expect("non-empty key");
    let mut current = table;
    for part in parts {
        current = current
            .entry(part.to_owned())
            .or_insert_with(|| Value::Table(Table::new()))
            .as_table_mut()
            .expect("dotted keys name tables");
    }
    current.insert(last.to_owned(), value);
}

/// Sets `key` to `text` in the file at `path`, keeping its other keys, after
/// checking the key exists and the resulting file is a valid configuration.
pub fn set_in_file(path: &Path, key: &str, text: &str) -> Result<(), ConfigError> {
    let known = keys();
    let (_, like) = known.iter().find(|(k, _)| k == key).ok_or_else(|| unknown_key(key))?;
    let value = parse_like(like, text)
        .map_err(|message| ConfigError { origin: key.to_owned(), message })?;
    let mut table = read_table(path)?.unwrap_or_default();
    set_path(&mut table, key, value);
    let mut check = defaults_table();
    merge(&mut check, &table);
    let config: Config = Value::Table(check).try_into().map_err(|e: toml::de::Error| {
        ConfigError { origin: path.display().to_string(), message: e.message().to_owned() }
    })?;
    config.validate().map_err(|message| ConfigError { origin: key.to_owned(), message })?;
    let io = |e: std::io::Error| ConfigError {
        origin: path.display().to_string(),
        message: e.to_string(),
    };
    // A directory the user has is left as it is (the project's); a new one is 0700.
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        glovebox_platform::files::make_dirs(dir).map_err(io)?;
    }
    let text = toml::to_string_pretty(&table)
        .map_err(|e| ConfigError { origin: path.display().to_string(), message: e.to_string() })?;
    // 0600 through a file beside it: the configuration can hold `serve.token`, a bearer token.
    glovebox_platform::files::write_private(path, text.as_bytes()).map_err(io)
}

pub mod guidance;
#[cfg(test)]
mod tests;
