//! Low-level input as data: what the pointer and keyboard do, in global
//! desktop coordinates, before any route executes it. Routes that speak
//! pointer and keyboard (synthetic events, XTest) take these; semantic
//! routes (accessibility actions) never need them.

use glovebox_model::{Button, KeyCombo, Modifiers, Point};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gesture {
    /// `count` presses of `button` at `at` (2 = double click).
    Click { at: Point, button: Button, count: u8, held: Modifiers },
    /// The pointer comes to rest over `at`.
    Hover { at: Point, held: Modifiers },
    /// Left button pressed at `from`, moved, released at `to`.
    Drag { from: Point, to: Point, held: Modifiers },
    /// Wheel steps at `at`: positive `dy` scrolls down, positive `dx` right.
    Scroll { at: Point, dx: i32, dy: i32, held: Modifiers },
    /// A key combo pressed `repeat` times.
    Key { combo: KeyCombo, repeat: u8 },
    /// Text typed key by key.
    Text { text: String },
}

impl Gesture {
    /// The modifier keys held through a pointer gesture.
    pub fn held(&self) -> Modifiers {
        match self {
            Gesture::Click { held, .. } | Gesture::Hover { held, .. } | Gesture::Drag { held, .. } | Gesture::Scroll { held, .. } => *held,
            Gesture::Key { .. } | Gesture::Text { .. } => Modifiers::default(),
        }
    }
}
