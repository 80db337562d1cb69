// Probe: does a second XInput2 master pointer, driven by XTest through this
// client's ClientPointer, click a GTK4 window without moving the user's
// pointer, focus or stacking? Usage: mpx-probe X Y (root coordinates).
use x11rb::connection::Connection;
use x11rb::protocol::xinput::{self, ConnectionExt as _};
use x11rb::protocol::xtest::ConnectionExt as _;
use x11rb::wrapper::ConnectionExt as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<i16> = std::env::args().skip(1).map(|a| a.parse().unwrap()).collect();
    let (x, y) = (args[0], args[1]);
    let (conn, screen) = x11rb::connect(None)?;
    let root = conn.setup().roots[screen].root;
    conn.xinput_xi_query_version(2, 2)?.reply()?;
    let add = xinput::HierarchyChange {
        len: 4,
        data: xinput::HierarchyChangeData::AddMaster(xinput::HierarchyChangeDataAddMaster { send_core: true, enable: true, name: b"glovebox".to_vec() }),
    };
    conn.xinput_xi_change_hierarchy(&[add])?.check()?;
    let devices = conn.xinput_xi_query_device(xinput::Device::ALL)?.reply()?;
    let master = devices.infos.iter().find(|d| d.name == b"glovebox pointer" && d.type_ == xinput::DeviceType::MASTER_POINTER).expect("new master").deviceid;
    let master_kbd = devices.infos.iter().find(|d| d.name == b"glovebox keyboard").expect("kbd").deviceid;
    for d in &devices.infos {
        eprintln!("device {} {:?} {:?} attach {}", d.deviceid, String::from_utf8_lossy(&d.name), d.type_, d.attachment);
    }
    conn.xinput_xi_set_client_pointer(0u32, master)?.check()?;
    let user = conn.xinput_xi_query_pointer(root, 2u16)?.reply()?;
    eprintln!("user pointer before {} {}", user.root_x >> 16, user.root_y >> 16);
    conn.xtest_fake_input(x11rb::protocol::xproto::MOTION_NOTIFY_EVENT, 0, 0, root, x, y, 0)?;
    conn.sync()?;
    std::thread::sleep(std::time::Duration::from_millis(100));
    conn.xtest_fake_input(x11rb::protocol::xproto::BUTTON_PRESS_EVENT, 1, 0, root, 0, 0, 0)?;
    conn.sync()?;
    std::thread::sleep(std::time::Duration::from_millis(40));
    conn.xtest_fake_input(x11rb::protocol::xproto::BUTTON_RELEASE_EVENT, 1, 0, root, 0, 0, 0)?;
    conn.sync()?;
    std::thread::sleep(std::time::Duration::from_millis(300));
    let ours = conn.xinput_xi_query_pointer(root, master)?.reply()?;
    let user = conn.xinput_xi_query_pointer(root, 2u16)?.reply()?;
    eprintln!("probe pointer after {} {}; user pointer after {} {}", ours.root_x >> 16, ours.root_y >> 16, user.root_x >> 16, user.root_y >> 16);
    let remove = xinput::HierarchyChange {
        len: 3,
        data: xinput::HierarchyChangeData::RemoveMaster(xinput::HierarchyChangeDataRemoveMaster {
            deviceid: master,
            return_mode: xinput::ChangeMode::FLOAT,
            return_pointer: 0,
            return_keyboard: 0,
        }),
    };
    let _ = master_kbd;
    conn.xinput_xi_change_hierarchy(&[remove])?.check()?;
    conn.sync()?;
    Ok(())
}
