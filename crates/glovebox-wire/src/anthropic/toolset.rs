//! Anthropic's generally available computer contract: the toolset
//! `computer_toolset_20260801`. The client declares it once in `tools[]`
//! (no display size; per-member `configs`), and Claude answers with one
//! `tool_use` block per action, named after its member (`left_click`,
//! `type`, `zoom`, …), several per turn.
//!
//! A turn's blocks run in order against the host, each answered by its own
//! `tool_result`; the first failure stops the turn and every block after it
//! is answered `is_error` saying it was not run. Coordinates are pixels of
//! the screenshot last returned, which is fitted to the model's image
//! budget ([`super::toolset_limits`]); only `screenshot` and `zoom` answer
//! with an image, the other members with one line saying what was done.

use super::{
    block_id, check_block_type, Answer, AnthropicExecutor, ComputerAction, Space, ToolResult,
    ToolResultType,
};
use crate::error::invalid;
use glovebox_host::PersonChannel;
use glovebox_model::Refusal;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ToolsetVersion {
    #[serde(rename = "computer_toolset_20260801")]
    V20260801,
}

/// The toolset's members, in the order the contract lists them.
pub const MEMBERS: &[&str] = &[
    "key",
    "hold_key",
    "type",
    "cursor_position",
    "mouse_move",
    "left_mouse_down",
    "left_mouse_up",
    "left_click",
    "left_click_drag",
    "right_click",
    "middle_click",
    "double_click",
    "triple_click",
    "scroll",
    "wait",
    "screenshot",
    "zoom",
];

/// The name every member block may carry as `toolset_name`.
pub const TOOLSET_NAME: &str = "computer";

/// One member's overrides.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemberConfig {
    /// `false` withholds the member from the model; a call to it is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defer_loading: Option<bool>,
}

/// The `tools[]` entry as the client declared it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolsetDefinition {
    #[serde(rename = "type")]
    pub version: ToolsetVersion,
    /// Sparse per-member overrides; absent, null and `{}` are the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configs: Option<BTreeMap<String, MemberConfig>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<Value>,
}

impl Default for ToolsetDefinition {
    fn default() -> Self {
        ToolsetDefinition { version: ToolsetVersion::V20260801, configs: None, cache_control: None }
    }
}

impl ToolsetDefinition {
    /// Reads a `tools[]` entry; unknown members in `configs` are refused,
    /// as the contract refuses them.
    pub fn parse(value: &Value) -> Result<ToolsetDefinition, Refusal> {
        let toolset: ToolsetDefinition = serde_json::from_value(value.clone())
            .map_err(|e| invalid(format!("computer toolset definition: {e}")))?;
        if let Some(unknown) = toolset
            .configs
            .iter()
            .flatten()
            .map(|(name, _)| name)
            .find(|name| !MEMBERS.contains(&name.as_str()))
        {
            return Err(invalid(format!(
                "configs names {unknown:?}, which is no member of computer_toolset_20260801"
            )));
        }
        Ok(toolset)
    }

    /// Whether the model was offered `member` (every member is by default).
    pub fn enabled(&self, member: &str) -> bool {
        MEMBERS.contains(&member)
            && self
                .configs
                .as_ref()
                .and_then(|c| c.get(member))
                .and_then(|c| c.enabled)
                .unwrap_or(true)
    }

    /// The toolset with every member glovebox cannot run in the background
    /// switched off, as `glovebox run` declares it.
    pub fn glovebox_default() -> ToolsetDefinition {
        let off = MemberConfig { enabled: Some(false), defer_loading: None };
        ToolsetDefinition {
            configs: Some(BTreeMap::from([("hold_key".to_owned(), off)])),
            ..ToolsetDefinition::default()
        }
    }
}

/// A member block's action, checked against the definition.
fn member_action(toolset: &ToolsetDefinition, block: &Value) -> Result<ComputerAction, Refusal> {
    check_block_type(block)?;
    if let Some(name) =
        block.get("toolset_name").and_then(Value::as_str).filter(|n| *n != TOOLSET_NAME)
    {
        return Err(invalid(format!("toolset_name {name:?} is not the computer toolset")));
    }
    let name = block
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("the tool_use block has no name"))?;
    if !MEMBERS.contains(&name) {
        return Err(invalid(format!(
            "{name:?} is no member of computer_toolset_20260801 (members: {})",
            MEMBERS.join(", ")
        )));
    }
    if !toolset.enabled(name) {
        return Err(invalid(format!("{name} is disabled in this toolset definition (configs.{name}.enabled = false); it was not run")));
    }
    let input = match block.get("input") {
        Some(Value::Object(input)) => input.clone(),
        None | Some(Value::Null) => Map::new(),
        Some(other) => {
            return Err(invalid(format!("the input of {name} is not an object: {other}")))
        }
    };
    if input.contains_key("action") {
        return Err(invalid(format!("{name}'s input has an \"action\" field: member inputs carry only the member's own parameters")));
    }
    let mut tagged = input;
    tagged.insert("action".into(), Value::String(name.to_owned()));
    serde_json::from_value(Value::Object(tagged)).map_err(|e| invalid(format!("{name} input: {e}")))
}

/// Why a block of a turn did not run: block `at` (`failed`) failed before it.
pub fn not_run(at: usize, failed: &str) -> Refusal {
    invalid(format!(
        "not run: block {at} ({failed}) failed before it, and a turn stops at its first failure"
    ))
}

impl AnthropicExecutor {
    /// Runs one member block; the content of its result.
    pub fn run_member(
        &self,
        toolset: &ToolsetDefinition,
        block: &Value,
        channel: Option<Arc<dyn PersonChannel>>,
    ) -> Result<Vec<super::ContentBlock>, Refusal> {
        let action = member_action(toolset, block)?;
        self.run_action(Space::Screenshot, &action, channel, Answer::Acknowledge)
    }

    /// Answers one turn: `blocks` are the turn's member `tool_use` blocks, in
    /// order. Every block gets a result, in the same order. Refused as a
    /// whole (nothing run) only when a block has no `id` to answer.
    pub fn run_turn(
        &self,
        toolset: &ToolsetDefinition,
        blocks: &[Value],
        channel: Option<Arc<dyn PersonChannel>>,
    ) -> Result<Vec<ToolResult>, Refusal> {
        let ids: Vec<String> = blocks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                block_id(b)
                    .map_err(|e| invalid(format!("block {i}: {}; nothing was run", e.message)))
            })
            .collect::<Result<_, _>>()?;
        let mut results = Vec::with_capacity(blocks.len());
        let mut failed: Option<(usize, String)> = None;
        for (i, (block, id)) in blocks.iter().zip(ids).enumerate() {
            if let Some((at, name)) = &failed {
                results.push(ToolResult::refusal(id, &not_run(*at, name)));
                continue;
            }
            results.push(match self.run_member(toolset, block, channel.clone()) {
                Ok(content) => ToolResult {
                    kind: ToolResultType::ToolResult,
                    tool_use_id: id,
                    content,
                    is_error: false,
                },
                Err(refusal) => {
                    failed = Some((
                        i,
                        block.get("name").and_then(Value::as_str).unwrap_or("?").to_owned(),
                    ));
                    ToolResult::refusal(id, &refusal)
                }
            });
        }
        Ok(results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_config_members_and_fields_are_refused() {
        assert!(ToolsetDefinition::parse(&json!({"type": "computer_toolset_20260801"})).is_ok());
        assert!(ToolsetDefinition::parse(
            &json!({"type": "computer_toolset_20260801", "configs": {"zoom": {"enabled": false}}})
        )
        .is_ok());
        for bad in [
            json!({"type": "computer_toolset_20260801", "configs": {"teleport": {}}}),
            json!({"type": "computer_toolset_20260801", "configs": {"zoom": {"enabled": false, "size": 2}}}),
            json!({"type": "computer_toolset_20260801", "display_width_px": 1024}),
            json!({"type": "computer_toolset_20250101"}),
        ] {
            assert!(ToolsetDefinition::parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn members_parse_by_name_and_disabled_ones_are_refused() {
        let toolset = ToolsetDefinition::parse(
            &json!({"type": "computer_toolset_20260801", "configs": {"zoom": {"enabled": false}}}),
        )
        .unwrap();
        let block = |name: &str, input: Value| json!({"type": "tool_use", "id": "toolu_1", "name": name, "toolset_name": "computer", "input": input});
        assert!(matches!(
            member_action(
                &toolset,
                &block("left_click", json!({"coordinate": [3, 4], "text": "ctrl"}))
            ),
            Ok(ComputerAction::LeftClick { .. })
        ));
        assert!(matches!(
            member_action(&toolset, &block("key", json!({"text": "ctrl+s", "repeat": 2}))),
            Ok(ComputerAction::Key { repeat: Some(2), .. })
        ));
        assert!(matches!(
            member_action(&toolset, &block("screenshot", json!({}))),
            Ok(ComputerAction::Screenshot {})
        ));
        let refused = |b: Value| member_action(&toolset, &b).unwrap_err().message;
        assert!(refused(block("zoom", json!({"region": [0, 0, 10, 10]}))).contains("disabled"));
        assert!(refused(block("teleport", json!({}))).contains("no member"));
        assert!(refused(block("left_click", json!({"action": "key"}))).contains("action"));
        assert!(refused(json!({"type": "tool_use", "id": "t", "name": "left_click", "toolset_name": "browser", "input": {}})).contains("toolset_name"));
    }

    #[test]
    fn the_budget_keeps_the_aspect_inside_both_limits() {
        for (w, h) in [(1920, 1080), (1024, 768), (800, 1600), (3840, 2160), (400, 300)] {
            let l = super::super::toolset_limits(glovebox_model::Size::new(w, h));
            assert!(
                l.max_width <= super::super::TOOLSET_MAX_EDGE
                    && l.max_height <= super::super::TOOLSET_MAX_EDGE
            );
            assert!(
                u64::from(l.max_width) * u64::from(l.max_height)
                    <= super::super::TOOLSET_MAX_PIXELS,
                "{w}x{h} -> {l:?}"
            );
            assert!(l.max_width <= w && l.max_height <= h);
        }
        assert_eq!(
            super::super::toolset_limits(glovebox_model::Size::new(400, 300)),
            glovebox_model::CaptureLimits { max_width: 400, max_height: 300 }
        );
    }
}
