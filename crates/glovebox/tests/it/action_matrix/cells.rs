//! What a cell does and how its effect is judged: the elements and points
//! it aims at, the action it sends, the fixture's report compared before
//! and after, and the reset before the next cell.

use super::*;

/// The element named `name` (any role when `role` is empty; an editable
/// one before a label of the same name).
pub(super) fn element(seen: &Observation, role: Option<Role>, name: &str) -> Option<Target> {
    let matches = |e: &&glovebox_model::Element| {
        role.is_none_or(|r| e.role == r) && (name.is_empty() || e.name == name)
    };
    let root = seen.tree.root.as_ref()?;
    let editable =
        root.walk().filter(matches).find(|e| e.has(glovebox_model::ElementState::Editable));
    editable.or_else(|| root.walk().find(matches)).map(|e| Target::Element(e.id))
}

/// The element seen in the pixels as `name`: a field for an editable
/// role, a button for a push button, else any kind.
pub(super) fn seen_element<'a>(
    seen: &'a Observation,
    role: Option<Role>,
    name: &str,
) -> Option<&'a glovebox_model::SeenElement> {
    use glovebox_model::SeenKind;
    let kind = match role {
        Some(Role::PushButton) => Some(SeenKind::Button),
        Some(Role::Entry | Role::Text) => Some(SeenKind::Field),
        _ => None,
    };
    // Without a role, a control before the text that labels it.
    let order = [SeenKind::Field, SeenKind::Button, SeenKind::CheckBox, SeenKind::Text];
    order
        .iter()
        .filter(|k| kind.is_none_or(|want| want == **k))
        .find_map(|k| seen.tree.seen.iter().find(|e| e.kind == *k && e.text == name))
}

/// A point at `dx` from the centre of what was seen as `name`.
pub(super) fn seen_point(seen: &Observation, role: Option<Role>, name: &str, dx: i32) -> Target {
    let e = seen_element(seen, role, name).unwrap_or_else(|| {
        panic!("nothing seen as {role:?} {name:?}:\n{}", seen.tree.render_text())
    });
    let b = e.bounds;
    Target::Point(Point { x: b.x + b.width as i32 / 2 + dx, y: b.y + b.height as i32 / 2 })
}

/// A point at `dx` from the centre of the element the tree shows as `name`.
pub(super) fn point_of(seen: &Observation, role: Option<Role>, name: &str, dx: i32) -> Target {
    let root = seen.tree.root.as_ref().expect("a tree");
    let e = root
        .walk()
        .find(|e| role.is_none_or(|r| e.role == r) && e.name == name)
        .unwrap_or_else(|| panic!("no {role:?} {name:?}:\n{}", seen.tree.render_text()));
    let b = e.bounds.unwrap_or_else(|| panic!("{name:?} has no bounds"));
    Target::Point(Point { x: b.x + b.width as i32 / 2 + dx, y: b.y + b.height as i32 / 2 })
}

/// A point in the frame's image (window-relative without a screenshot) at
/// `dx, dy` from the centre of the fixture's widget `name`.
pub(super) fn point_in(state: &Value, name: &str, dx: i32, dy: i32) -> Target {
    let a = &state["allocations"][name];
    let (x, y, w, h) = (
        a[0].as_i64().unwrap() as i32,
        a[1].as_i64().unwrap() as i32,
        a[2].as_i64().unwrap() as i32,
        a[3].as_i64().unwrap() as i32,
    );
    Target::Point(Point { x: x + w / 2 + dx, y: y + h / 2 + dy })
}

/// The action of a cell, aimed by `addressing`. For xterm there are no
/// elements: element cells name an id the frame cannot have.
pub(super) fn action_for(
    act: Act,
    addressing: Addressing,
    app: App,
    mode: DeliveryMode,
    seen: &Observation,
    state: &Value,
) -> Action {
    let xterm_point = |x, y| Target::Point(Point { x, y });
    let aim = |role: Option<Role>, name: &str, widget: &str, dx: i32| -> Target {
        match (addressing, app) {
            (Addressing::Element, App::XTerm) => Target::Element("e1".parse().unwrap()),
            (Addressing::Element, app) if app.is_seen() => {
                seen_element(seen, role, name).map(|e| Target::Element(e.id)).unwrap_or_else(|| {
                    panic!(
                        "{app:?}: nothing seen as {role:?} {name:?}:\n{}",
                        seen.tree.render_text()
                    )
                })
            }
            (Addressing::Element, _) => element(seen, role, name).unwrap_or_else(|| {
                panic!("{app:?} has no {role:?} {name:?}:\n{}", seen.tree.render_text())
            }),
            (_, App::XTerm) => xterm_point(120 + dx, 100),
            (_, app) if app.is_seen() => seen_point(seen, role, name, dx),
            // A page knows its elements' places in the viewport, not in the window: aim by what the tree shows.
            (_, app) if app.is_web() => point_of(seen, role, name, dx),
            _ => point_in(state, widget, dx, 0),
        }
    };
    let pad = |dx| aim(None, "Pad", "pad", dx);
    match act {
        Act::Click => Action::Click {
            target: aim(Some(Role::PushButton), "Submit", "submit", 0),
            button: Button::Left,
            count: 1,
            modifiers: vec![],
        },
        Act::RightClick => {
            Action::Click { target: pad(0), button: Button::Right, count: 1, modifiers: vec![] }
        }
        Act::MiddleClick => {
            Action::Click { target: pad(0), button: Button::Middle, count: 1, modifiers: vec![] }
        }
        // Off the centre the element cell used: two double clicks at one spot within the
        // double-click time are a triple click to a browser, as they would be from a person.
        Act::DoubleClick if addressing == Addressing::Point => {
            Action::Click { target: pad(20), button: Button::Left, count: 2, modifiers: vec![] }
        }
        Act::DoubleClick => {
            Action::Click { target: pad(0), button: Button::Left, count: 2, modifiers: vec![] }
        }
        // xterm reports motion only into a new cell: each move cell has its own.
        Act::Move if app == App::XTerm && addressing == Addressing::Point => Action::Move {
            target: xterm_point(if mode == DeliveryMode::Background { 200 } else { 280 }, 150),
            modifiers: vec![],
        },
        // Off the centre the other pad cells use: a toolkit reports no move to where the pointer already was.
        Act::Move if addressing == Addressing::Point => {
            Action::Move { target: pad(20), modifiers: vec![] }
        }
        Act::Move => Action::Move { target: pad(0), modifiers: vec![] },
        Act::CtrlClick => Action::Click {
            target: pad(0),
            button: Button::Left,
            count: 1,
            modifiers: vec![ModifierKey::Ctrl],
        },
        Act::ShiftScroll => {
            Action::Scroll { target: pad(0), dx: 0, dy: 2, modifiers: vec![ModifierKey::Shift] }
        }
        Act::Drag | Act::AltDrag => {
            let from = pad(-60);
            // The far end is a point: an element has one centre.
            let to = match (addressing, app) {
                (Addressing::Element, App::XTerm) => xterm_point(300, 100),
                (_, App::XTerm) => xterm_point(240, 100),
                (_, app) if app.is_seen() => seen_point(seen, None, "Pad", 60),
                (_, app) if app.is_web() => point_of(seen, None, "Pad", 60),
                _ => point_in(state, "pad", 60, 0),
            };
            let modifiers = if act == Act::AltDrag { vec![ModifierKey::Alt] } else { vec![] };
            Action::Drag { from, to, modifiers }
        }
        Act::Scroll => Action::Scroll { target: pad(0), dx: 0, dy: 2, modifiers: vec![] },
        Act::TypeAscii => Action::Type { text: TYPED_ASCII.into() },
        Act::TypeUnicode => Action::Type { text: TYPED_UNICODE.into() },
        Act::Key => Action::Key { combo: "ctrl+a".parse().unwrap(), repeat: 1 },
        Act::SetValue => {
            Action::SetValue { target: aim(None, "Name", "name", 0), text: NEW_NAME.into() }
        }
        Act::Select => Action::Select {
            target: aim(Some(Role::ComboBox), combo_name(app), "combo", 0),
            option: "Blue".into(),
        },
    }
}

pub(super) fn combo_name(app: App) -> &'static str {
    match app {
        // GTK3 and Qt name a combo box by the option it shows; a web page by its label.
        App::Gtk3 | App::Qt5 => "Red",
        App::Chromium | App::Firefox | App::ChromiumSeen | App::FirefoxSeen | App::Tk => "Colour",
        _ => "",
    }
}

/// Whether the fixture's report shows the effect of `act`, comparing the
/// report after the action with the one before.
pub(crate) fn shows(act: Act, app: App, before: &Value, after: &Value) -> bool {
    let presses = |s: &Value| s["pad"]["presses"].as_array().cloned().unwrap_or_default();
    let new_presses: Vec<Value> = presses(after).into_iter().skip(presses(before).len()).collect();
    let last_press = presses(after).last().cloned().unwrap_or(Value::Null);
    let count = |s: &Value, path: &[&str]| path.iter().fold(s, |v, k| &v[*k]).as_u64().unwrap_or(0);
    let keys_grew =
        || after["keys"].as_array().map(Vec::len) > before["keys"].as_array().map(Vec::len);
    // The modifiers the pad saw on events since `before`: the held key must be among them, alone.
    let held = |s: &Value| s["pad"]["held"].as_array().cloned().unwrap_or_default();
    let newly_held = |event: &str, key: &str| {
        held(after)
            .iter()
            .skip(held(before).len())
            .any(|h| h["event"] == event && h["modifiers"] == json!([key]))
    };
    // Downward wheel events since `before`: one or two for two steps (a browser may fold them).
    let folded_down = || {
        count(after, &["pad", "scrolls", "down"])
            .checked_sub(count(before, &["pad", "scrolls", "down"]))
            .is_some_and(|d| (1..=2).contains(&d))
    };
    match (act, app) {
        (Act::Click, App::XTerm) => new_presses.len() == 1 && new_presses[0]["button"] == 1,
        (Act::Click, _) => {
            count(after, &["clicks", "submit"]) == count(before, &["clicks", "submit"]) + 1
        }
        (Act::RightClick, _) => new_presses.len() == 1 && new_presses[0]["button"] == 3,
        (Act::MiddleClick, _) => new_presses.len() == 1 && new_presses[0]["button"] == 2,
        // xterm reports presses, not click counts.
        (Act::DoubleClick, App::XTerm) => {
            new_presses.len() == 2 && new_presses.iter().all(|p| p["button"] == 1)
        }
        (Act::DoubleClick, _) => {
            new_presses.len() == 1 && last_press["button"] == 1 && last_press["count"] == 2
        }
        (Act::Move, _) => count(after, &["pad", "motions"]) > count(before, &["pad", "motions"]),
        (Act::Drag, _) => {
            after["pad"]["drags"].as_array().map(Vec::len)
                == before["pad"]["drags"].as_array().map(|d| d.len() + 1)
        }
        // A browser may fold wheel steps that arrive within one frame into one wheel event
        // (Firefox on the agent display did, once in a clean CI run): one or two events, downwards.
        (Act::Scroll, App::Chromium | App::Firefox) => folded_down(),
        (Act::Scroll, _) => {
            count(after, &["pad", "scrolls", "down"])
                == count(before, &["pad", "scrolls", "down"]) + 2
        }
        (Act::ShiftScroll, App::Chromium | App::Firefox) => {
            folded_down() && newly_held("scroll", "shift")
        }
        (Act::CtrlClick, _) => {
            new_presses.len() == 1 && new_presses[0]["button"] == 1 && newly_held("press 1", "ctrl")
        }
        (Act::ShiftScroll, _) => {
            count(after, &["pad", "scrolls", "down"])
                == count(before, &["pad", "scrolls", "down"]) + 2
                && newly_held("scroll", "shift")
        }
        (Act::AltDrag, _) => {
            after["pad"]["drags"].as_array().map(Vec::len)
                == before["pad"]["drags"].as_array().map(|d| d.len() + 1)
                && newly_held("release 1", "alt")
        }
        (Act::TypeAscii, App::XTerm) => {
            after["typed"].as_str().unwrap_or("").ends_with(TYPED_ASCII)
        }
        (Act::TypeUnicode, App::XTerm) => {
            after["typed"].as_str().unwrap_or("").ends_with(TYPED_UNICODE)
        }
        (Act::TypeAscii, _) => after["values"]["name"] == TYPED_ASCII,
        (Act::TypeUnicode, _) => after["values"]["name"] == TYPED_UNICODE,
        (Act::Key, App::XTerm) => after["typed"].as_str().unwrap_or("").ends_with('\u{1}'),
        (Act::Key, _) => {
            keys_grew()
                && after["keys"]
                    .as_array()
                    .unwrap()
                    .last()
                    .is_some_and(|k| k["key"] == "a" && k["mods"] == json!(["ctrl"]))
        }
        (Act::SetValue, _) => after["values"]["name"] == NEW_NAME,
        (Act::Select, _) => after["values"]["combo"] == "Blue",
    }
}

/// Puts the fixture back to a known state before a cell.
pub(super) fn reset(target: &Target_, act: Act) {
    if target.app == App::XTerm {
        return;
    }
    target.fixture.send(json!({"cmd": "set", "widget": "name", "value": ""}));
    if matches!(target.app, App::Gtk3 | App::Qt5 | App::Tk) || target.app.is_web() {
        target.fixture.send(json!({"cmd": "set", "widget": "combo", "value": "Red"}));
    }
    if matches!(act, Act::TypeAscii | Act::TypeUnicode | Act::Key) {
        // Focus moves away and back, so the toolkit announces it afresh
        // (GTK4 drops the focused state of an inactive window otherwise).
        target.fixture.send(json!({"cmd": "focus", "widget": "submit"}));
        target.fixture.wait_state("submit focused", |s| {
            s["focus"] == "submit"
                && (!target.app.is_web() || s["commands_done"] == s["commands_sent"])
        });
        target.fixture.send(json!({"cmd": "focus", "widget": "name"}));
        target.fixture.wait_state("name focused and empty", |s| {
            s["focus"] == "name"
                && s["values"]["name"] == ""
                && (!target.app.is_web() || s["commands_done"] == s["commands_sent"])
        });
    } else {
        let web_done = |s: &Value| !target.app.is_web() || s["commands_done"] == s["commands_sent"];
        target.fixture.wait_state("name empty", |s| {
            web_done(s)
                && s["values"]["name"] == ""
                && (!(matches!(target.app, App::Gtk3 | App::Qt5 | App::Tk) || target.app.is_web())
                    || s["values"]["combo"] == "Red")
        });
    }
}

/// A cell's verdict: a delivery the fixture's report shows within 5 s,
/// or the declared refusal with the report unchanged and `refused_ok`
/// (what else a refusal must have left alone) holding.
pub(super) fn judge(
    expect: Expect,
    result: Result<glovebox_host::ActOutcome, Refusal>,
    target: &Target_,
    act: Act,
    before: &Value,
    refused_ok: impl FnOnce() -> Result<(), String>,
) -> Result<String, String> {
    match (expect, result) {
        (Expect::Delivered, Ok(done)) => {
            let deadline = Instant::now() + Duration::from_secs(5);
            loop {
                let now = target.fixture.state().unwrap();
                if shows(act, target.app, before, &now) {
                    return Ok(format!("delivered ({})", done.delivery.route));
                }
                if Instant::now() > deadline {
                    return Err(format!(
                        "reported delivered by {} but the fixture shows no change: {now}",
                        done.delivery.route
                    ));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        (Expect::Delivered, Err(refusal)) => Err(format!("refused: {refusal}")),
        (Expect::Refused(code), Ok(done)) => {
            Err(format!("expected {code}, but delivered by {}", done.delivery.route))
        }
        (Expect::Refused(code), Err(refusal)) if refusal.code == code => {
            // A refusal changes nothing.
            std::thread::sleep(Duration::from_millis(150));
            let now = target.fixture.state().unwrap();
            if shows(act, target.app, before, &now) {
                return Err(format!("refused with {code} but the fixture changed: {now}"));
            }
            refused_ok()?;
            Ok(format!("refused {code}"))
        }
        (Expect::Refused(code), Err(refusal)) => Err(format!("expected {code}, got {refusal}")),
    }
}
