//! Executors for native computer-use models (DESIGN.md §1, §6): an OpenAI GA
//! `computer_call`, Anthropic computer `tool_use` blocks (the toolset or
//! the single beta tools) or a Gemini computer-use function call becomes
//! host actions, and the answer goes back in exactly the provider's result
//! shape.
//!
//! The screen a model sees is the host's bound window, not the whole
//! desktop: grants are window-scoped, and a desktop image would show windows
//! no grant may reach. Every coordinate is a point in the pixels of the
//! screenshot the executor last returned, delivered through
//! [`glovebox_host::Host`], which makes every check; the executors only
//! translate; approvals and safety checks are the host's, asked through the
//! prompt channel of the host handle they were given.
//!
//! ```no_run
//! # use glovebox_wire::*;
//! # fn demo(host: glovebox_host::Host) -> Result<(), WireError> {
//! let openai = OpenAiExecutor::new(host, ExecutorOptions::default());
//! let call = serde_json::json!({"type": "computer_call", "call_id": "call_1", "actions": [{"type": "screenshot"}]});
//! let output = openai.execute(&call)?;
//! println!("{}", serde_json::to_string(&output).unwrap());
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]

pub mod anthropic;
pub mod error;
pub mod gate;
pub mod gemini;
pub mod keys;
pub mod openai;
pub mod scaling;
pub mod session;

pub use anthropic::{
    AnthropicExecutor, ComputerAction, ContentBlock, ToolDefinition, ToolResult, ToolVersion,
    ToolsetDefinition,
};
pub use error::WireError;
pub use gate::SafetyCheck;
pub use gemini::{FunctionCall, GeminiCall, GeminiExecutor};
pub use openai::{ComputerCall, ComputerCallOutput, GaAction, OpenAiExecutor};
pub use session::ExecutorOptions;
