//! Input described as data before anything executes it: what to do, and to
//! which target (an element of the newest frame, or a point in its image).

use crate::a11y::ElementId;
use crate::error::Refusal;
use crate::geometry::Point;
use crate::keys::{KeyCombo, ModifierKey, Modifiers};
use serde::{Deserialize, Serialize};

/// Where an action lands: an element id from the newest frame, or a point in
/// that frame's image pixels. Never both, never neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Target {
    /// An element id shown as `@e12` in the newest tree (preferred).
    Element(ElementId),
    /// A point in the newest screenshot's pixels.
    Point(Point),
}

/// A mouse button.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Button {
    /// The primary button.
    Left,
    /// The secondary button, which opens context menus.
    Right,
    /// The middle button (pressing the wheel).
    Middle,
    /// The first side button; browsers and file managers take it as back.
    Back,
    /// The second side button; browsers and file managers take it as forward.
    Forward,
}

/// One input action: the one declaration every schema is derived from
/// (MCP batches, the loop's decision function). Strict: unknown fields are
/// refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
// Models read this schema in every turn: `#[schemars(description = "")]`
// keeps the rustdoc of fields that need no prose there out of it.
pub enum Action {
    /// Press and release a mouse button on the target.
    Click {
        /// Where to click.
        #[schemars(description = "")]
        target: Target,
        /// Which button to press.
        #[schemars(description = "")]
        button: Button,
        /// 1, 2 (a double click) or 3 (a triple click).
        #[schemars(range(min = *CLICK_COUNT.start(), max = *CLICK_COUNT.end()))]
        count: u8,
        /// Keys held down during the click, e.g. ctrl to add to a selection.
        #[schemars(description = "")]
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        modifiers: Vec<ModifierKey>,
    },
    /// Move the pointer over the target (hover).
    Move {
        /// Where to move the pointer.
        #[schemars(description = "")]
        target: Target,
        /// Keys held down while the pointer moves.
        #[schemars(description = "")]
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        modifiers: Vec<ModifierKey>,
    },
    /// Press the left button at `from`, move to `to`, release.
    Drag {
        /// Where the left button goes down.
        #[schemars(description = "")]
        from: Target,
        /// Where it comes up.
        #[schemars(description = "")]
        to: Target,
        /// Keys held down during the drag.
        #[schemars(description = "")]
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        modifiers: Vec<ModifierKey>,
    },
    /// Turn the wheel over the target.
    Scroll {
        /// Where the pointer is while the wheel turns: the element or point scrolled.
        #[schemars(description = "")]
        target: Target,
        /// Wheel steps to the right (negative: left).
        #[schemars(range(min = -MAX_SCROLL_STEPS, max = MAX_SCROLL_STEPS))]
        dx: i32,
        /// Wheel steps down (negative: up).
        #[schemars(range(min = -MAX_SCROLL_STEPS, max = MAX_SCROLL_STEPS))]
        dy: i32,
        /// Keys held down while the wheel turns (ctrl zooms in many applications).
        #[schemars(description = "")]
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        modifiers: Vec<ModifierKey>,
    },
    /// Text typed at the caret of the focused field.
    Type {
        /// The characters to type.
        text: String,
    },
    /// Replaces the whole value of the target (a field, slider or spin button).
    SetValue {
        /// The field, slider or spin button.
        #[schemars(description = "")]
        target: Target,
        /// The whole new value; empty clears a field.
        text: String,
    },
    /// Press a key or chord.
    Key {
        /// A key or chord such as Enter, ctrl+a, shift+Tab, F5.
        combo: KeyCombo,
        /// Times the key or chord is pressed (1..=20).
        #[schemars(description = "")]
        #[schemars(range(min = *KEY_REPEAT.start(), max = *KEY_REPEAT.end()))]
        repeat: u8,
    },
    /// Choose an option of a combo box or list by its visible name.
    Select {
        /// The combo box or list.
        #[schemars(description = "")]
        target: Target,
        /// The option's visible name.
        option: String,
    },
}

/// Longest text a single type/set_value action carries.
pub const MAX_TEXT_CHARS: usize = 10_000;

/// Clicks one click action makes: 1, 2 (a double click) or 3 (a triple click).
pub const CLICK_COUNT: std::ops::RangeInclusive<u8> = 1..=3;

/// Times one key action presses its key or chord.
pub const KEY_REPEAT: std::ops::RangeInclusive<u8> = 1..=20;

/// Most wheel steps a scroll turns along either axis, either way.
pub const MAX_SCROLL_STEPS: i32 = 100;

impl Action {
    /// A stable name for audit records and approvals.
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Click { .. } => "click",
            Action::Move { .. } => "move",
            Action::Drag { .. } => "drag",
            Action::Scroll { .. } => "scroll",
            Action::Type { .. } => "type",
            Action::SetValue { .. } => "set_value",
            Action::Key { .. } => "key",
            Action::Select { .. } => "select",
        }
    }

    /// Every target the action names, in order.
    pub fn targets(&self) -> Vec<Target> {
        match self {
            Action::Click { target, .. }
            | Action::Move { target, .. }
            | Action::Scroll { target, .. } => vec![*target],
            Action::SetValue { target, .. } | Action::Select { target, .. } => vec![*target],
            Action::Drag { from, to, .. } => vec![*from, *to],
            Action::Type { .. } | Action::Key { .. } => vec![],
        }
    }

    /// The keys a pointer action holds down while it runs.
    pub fn modifiers(&self) -> Modifiers {
        match self {
            Action::Click { modifiers, .. }
            | Action::Move { modifiers, .. }
            | Action::Drag { modifiers, .. }
            | Action::Scroll { modifiers, .. } => Modifiers::of(modifiers),
            _ => Modifiers::default(),
        }
    }

    /// Characters of text the action carries (audited as a length only).
    pub fn text_length(&self) -> Option<usize> {
        match self {
            Action::Type { text } | Action::SetValue { text, .. } => Some(text.chars().count()),
            _ => None,
        }
    }

    /// The text the action puts into the application: `type`'s and
    /// `set_value`'s text, and the characters a key pressed `repeat` times
    /// types ([`KeyCombo::typed_char`]) — one key at a time types what a
    /// `type` would. `None` for everything else.
    pub fn typed_text(&self) -> Option<String> {
        match self {
            Action::Type { text } | Action::SetValue { text, .. } => Some(text.clone()),
            Action::Key { combo, repeat } => {
                combo.typed_char().map(|c| std::iter::repeat_n(c, usize::from(*repeat)).collect())
            }
            _ => None,
        }
    }

    /// The same action with its typed text emptied (a recording that keeps only the length).
    pub fn without_text(&self) -> Action {
        let mut action = self.clone();
        if let Action::Type { text } | Action::SetValue { text, .. } = &mut action {
            text.clear();
        }
        action
    }

    /// The same action typing `typed` instead (text a recording did not
    /// keep, given again by the person replaying it).
    pub fn with_text(&self, typed: &str) -> Action {
        let mut action = self.clone();
        if let Action::Type { text } | Action::SetValue { text, .. } = &mut action {
            *text = typed.to_owned();
        }
        action
    }

    /// The same action aimed at `targets`, one per [`Action::targets`] in
    /// order: a recorded action on the elements of a live tree.
    pub fn retargeted(&self, targets: &[Target]) -> Result<Action, Refusal> {
        if targets.len() != self.targets().len() {
            return Err(Refusal::invalid_argument(format!(
                "{} takes {} target(s), not {}",
                self.kind(),
                self.targets().len(),
                targets.len()
            )));
        }
        let mut action = self.clone();
        match &mut action {
            Action::Click { target, .. }
            | Action::Move { target, .. }
            | Action::Scroll { target, .. }
            | Action::SetValue { target, .. }
            | Action::Select { target, .. } => *target = targets[0],
            Action::Drag { from, to, .. } => (*from, *to) = (targets[0], targets[1]),
            Action::Type { .. } | Action::Key { .. } => {}
        }
        Ok(action)
    }

    /// Checks argument ranges; nothing is clamped.
    pub fn validate(&self) -> Result<(), Refusal> {
        match self {
            Action::Click { count, .. } if !CLICK_COUNT.contains(count) => {
                Err(Refusal::invalid_argument(format!(
                    "click count {count} is outside {CLICK_COUNT:?}"
                )))
            }
            Action::Key { repeat, .. } if !KEY_REPEAT.contains(repeat) => Err(
                Refusal::invalid_argument(format!("key repeat {repeat} is outside {KEY_REPEAT:?}")),
            ),
            Action::Type { text } if text.is_empty() => {
                Err(Refusal::invalid_argument("there is no text to type"))
            }
            Action::Scroll { dx: 0, dy: 0, .. } => {
                Err(Refusal::invalid_argument("a scroll needs a non-zero dx or dy"))
            }
            Action::Scroll { dx, dy, .. }
                if dx.unsigned_abs() > MAX_SCROLL_STEPS.unsigned_abs()
                    || dy.unsigned_abs() > MAX_SCROLL_STEPS.unsigned_abs() =>
            {
                Err(Refusal::invalid_argument(format!(
                    "scroll steps lie in -{MAX_SCROLL_STEPS}..={MAX_SCROLL_STEPS}"
                )))
            }
            Action::Select { option, .. } if option.is_empty() => {
                Err(Refusal::invalid_argument("the option to select is empty"))
            }
            Action::Drag { from, to, .. } if from == to => {
                Err(Refusal::invalid_argument("a drag needs two different points"))
            }
            _ => match self.text_length() {
                Some(n) if n > MAX_TEXT_CHARS => Err(Refusal::invalid_argument(format!(
                    "{n} characters exceed the {MAX_TEXT_CHARS}-character limit"
                ))),
                _ => Ok(()),
            },
        }
    }
}

/// How input reaches the window.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryMode {
    /// Never moves the user's pointer, focus or stacking order; refused
    /// (`COMPUTER_BACKGROUND_UNAVAILABLE`) where no such route exists.
    #[default]
    Background,
    /// Activates the window and uses the real pointer and keyboard, then
    /// restores them. Only when the configuration allows it.
    Foreground,
}

/// Steps of a batch: the first may target anything, later ones only type
/// or press keys, so a batch cannot wander across a window on stale ids.
pub const BATCH_STEPS: std::ops::RangeInclusive<usize> = 2..=3;

/// Checks the shape of a batch before any step runs.
pub fn validate_batch(steps: &[Action]) -> Result<(), Refusal> {
    if !BATCH_STEPS.contains(&steps.len()) {
        return Err(Refusal::invalid_argument(format!(
            "a batch has 2 or 3 steps, not {}",
            steps.len()
        )));
    }
    for (i, step) in steps.iter().enumerate() {
        if i > 0 && !matches!(step, Action::Type { .. } | Action::Key { .. }) {
            return Err(Refusal::invalid_argument(format!(
                "batch step {} is a {}: only the first step may target; later steps type or press keys",
                i + 1,
                step.kind()
            )));
        }
        step.validate()
            .map_err(|e| Refusal::new(e.code, format!("batch step {}: {}", i + 1, e.message)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn ranges_are_checked_not_clamped() {
        let at = Target::Point(Point { x: 1, y: 1 });
        assert!(Action::Click { target: at, button: Button::Left, count: 2, modifiers: vec![] }
            .validate()
            .is_ok());
        for bad in [
            Action::Click { target: at, button: Button::Left, count: 0, modifiers: vec![] },
            Action::Click { target: at, button: Button::Left, count: 4, modifiers: vec![] },
            Action::Key { combo: "ctrl+a".parse().unwrap(), repeat: 21 },
            Action::Type { text: String::new() },
            Action::Scroll { target: at, dx: 0, dy: 0, modifiers: vec![] },
            Action::Drag { from: at, to: at, modifiers: vec![] },
            Action::Type { text: "x".repeat(MAX_TEXT_CHARS + 1) },
        ] {
            assert_eq!(bad.validate().unwrap_err().code, ErrorCode::InvalidArgument, "{bad:?}");
        }
    }

    #[test]
    fn range_refusals_name_the_declared_ranges() {
        let at = Target::Point(Point { x: 1, y: 1 });
        let message = |action: Action| action.validate().unwrap_err().message;
        assert_eq!(
            message(Action::Click {
                target: at,
                button: Button::Left,
                count: 4,
                modifiers: vec![]
            }),
            "click count 4 is outside 1..=3"
        );
        assert_eq!(
            message(Action::Key { combo: "Enter".parse().unwrap(), repeat: 21 }),
            "key repeat 21 is outside 1..=20"
        );
        assert_eq!(
            message(Action::Scroll { target: at, dx: 101, dy: 0, modifiers: vec![] }),
            "scroll steps lie in -100..=100"
        );
        assert!(Action::Scroll { target: at, dx: -100, dy: 100, modifiers: vec![] }
            .validate()
            .is_ok());
        // The most negative step count has no absolute value in i32: refused, not a panic.
        assert_eq!(
            message(Action::Scroll { target: at, dx: i32::MIN, dy: 0, modifiers: vec![] }),
            "scroll steps lie in -100..=100"
        );
    }

    #[test]
    fn batches_have_two_or_three_steps_and_target_only_first() {
        let at = Target::Point(Point { x: 1, y: 1 });
        let click = Action::Click { target: at, button: Button::Left, count: 1, modifiers: vec![] };
        let typing = Action::Type { text: "hi".into() };
        let enter = Action::Key { combo: "Enter".parse().unwrap(), repeat: 1 };
        assert!(validate_batch(&[click.clone(), typing.clone(), enter.clone()]).is_ok());
        for bad in [
            vec![click.clone()],
            vec![click.clone(), typing.clone(), enter.clone(), enter.clone()],
            vec![typing.clone(), click.clone()],
            vec![click, Action::Key { combo: "Enter".parse().unwrap(), repeat: 0 }],
        ] {
            assert_eq!(
                validate_batch(&bad).unwrap_err().code,
                ErrorCode::InvalidArgument,
                "{bad:?}"
            );
        }
    }

    #[test]
    fn targets_are_an_enum_on_the_wire() {
        let json = serde_json::to_value(Action::Click {
            target: Target::Element(ElementId::tree(4).unwrap()),
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        })
        .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"action": "click", "target": {"element": "e4"}, "button": "left", "count": 1})
        );
        let point: Action = serde_json::from_value(
            serde_json::json!({"action": "move", "target": {"point": {"x": 3, "y": 4}}}),
        )
        .unwrap();
        assert_eq!(point.targets(), vec![Target::Point(Point { x: 3, y: 4 })]);
        assert!(serde_json::from_value::<Target>(
            serde_json::json!({"element": "e1", "point": {"x": 1, "y": 1}})
        )
        .is_err());
    }

    #[test]
    fn a_key_action_carries_a_parsed_combo_and_a_bad_one_never_becomes_an_action() {
        let key: Action = serde_json::from_value(
            serde_json::json!({"action": "key", "combo": "Ctrl+s", "repeat": 1}),
        )
        .unwrap();
        assert_eq!(key, Action::Key { combo: "ctrl+s".parse().unwrap(), repeat: 1 });
        assert_eq!(serde_json::to_value(&key).unwrap()["combo"], "ctrl+s");
        for bad in ["  ", "ctrl+hyper", "nope", ""] {
            let refused = serde_json::from_value::<Action>(
                serde_json::json!({"action": "key", "combo": bad, "repeat": 1}),
            )
            .unwrap_err();
            assert!(refused.to_string().contains("key combo"), "{bad:?}: {refused}");
        }
    }
}
