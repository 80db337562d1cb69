//! Guidance goes with the program a window's process runs, not with the
//! application name the window claims (which any program can claim).

use super::*;

const CHROMIUM: u32 = 2001;
const TK_APP: u32 = 2002;
const UNKNOWN: u32 = 2003;

#[test]
fn a_window_claiming_an_apps_name_from_another_program_carries_no_guidance() {
    let uid = current_uid();
    let processes = DeclaredProcesses::new([
        (std::process::id(), 1, uid, "/usr/bin/glovebox"),
        (CHROMIUM, 1, uid, "/usr/lib/chromium/chromium"),
        // A Tk program whose window class says Chromium.
        (TK_APP, 1, uid, "/usr/bin/wish8.6"),
        // UNKNOWN: a process the table cannot read.
    ]);
    let entry = glovebox_model::GuidanceEntry::new(
        "Chromium",
        None,
        None,
        vec!["Pages need --force-renderer-accessibility.".into()],
        "shipped with glovebox",
    )
    .unwrap();
    let geometry = |x| Rect::new(x, 0, 300, 200);
    let world = fake_world("guidance-by-executable")
        .window(fake_window(id(TK_APP, 0x10), "Chromium", "New Tab", geometry(0)))
        .window(fake_window(id(UNKNOWN, 0x20), "Chromium", "New Tab", geometry(400)))
        .window(fake_window(id(CHROMIUM, 0x30), "Chromium", "New Tab", geometry(800)))
        .processes(processes)
        .configure(|config| config.guidance = vec![entry])
        .open();
    let guidance = |window: WindowId| {
        let seen = world.host.observe(Some(&WindowRef::Id(window)), false).unwrap();
        assert_eq!(seen.frame.window, window);
        seen.tree.guidance
    };
    assert_eq!(guidance(id(TK_APP, 0x10)), None, "wish8.6 is not Chromium, whatever its class");
    assert_eq!(guidance(id(UNKNOWN, 0x20)), None, "an unknown executable gets none");
    let real = guidance(id(CHROMIUM, 0x30)).expect("Chromium's own window has its guidance");
    assert_eq!(real.notes, ["Pages need --force-renderer-accessibility."]);
}
