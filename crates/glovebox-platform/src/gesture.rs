//! Low-level input as data: what the pointer and keyboard do, in global
//! desktop coordinates, before any route executes it. Routes that speak
//! pointer and keyboard (synthetic events, XTest) take these; semantic
//! routes (accessibility actions) never need them.

use glovebox_model::{Button, KeyCombo, Modifiers, Point};

/// One pointer or keyboard gesture, ready for a route that speaks events.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gesture {
    /// `count` presses of `button` at `at` (2 = double click).
    Click {
        /// Where, in global desktop coordinates.
        at: Point,
        /// Which button is pressed.
        button: Button,
        /// How many presses in a row.
        count: u8,
        /// Modifier keys held down through the presses.
        held: Modifiers,
    },
    /// The pointer comes to rest over `at`.
    Hover {
        /// Where, in global desktop coordinates.
        at: Point,
        /// Modifier keys held down while the pointer moves there.
        held: Modifiers,
    },
    /// Left button pressed at `from`, moved, released at `to`.
    Drag {
        /// Where the button goes down, in global desktop coordinates.
        from: Point,
        /// Where it comes up, in global desktop coordinates.
        to: Point,
        /// Modifier keys held down through the drag.
        held: Modifiers,
    },
    /// Wheel steps at `at`: positive `dy` scrolls down, positive `dx` right.
    Scroll {
        /// Where the pointer is, in global desktop coordinates.
        at: Point,
        /// Horizontal wheel steps.
        dx: i32,
        /// Vertical wheel steps.
        dy: i32,
        /// Modifier keys held down through the steps.
        held: Modifiers,
    },
    /// A key combo pressed `repeat` times.
    Key {
        /// The keys, modifiers included.
        combo: KeyCombo,
        /// How many times it is pressed.
        repeat: u8,
    },
    /// Text typed key by key.
    Text {
        /// What is typed.
        text: String,
    },
}

impl Gesture {
    /// The modifier keys held through a pointer gesture.
    pub fn held(&self) -> Modifiers {
        match self {
            Gesture::Click { held, .. }
            | Gesture::Hover { held, .. }
            | Gesture::Drag { held, .. }
            | Gesture::Scroll { held, .. } => *held,
            Gesture::Key { .. } | Gesture::Text { .. } => Modifiers::default(),
        }
    }
}
