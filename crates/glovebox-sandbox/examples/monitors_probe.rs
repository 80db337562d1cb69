fn main() {
    let sandbox = glovebox_sandbox::Sandbox::start(Default::default()).unwrap();
    println!("display {} bus {}", sandbox.display(), sandbox.bus_address());
    let spec = |name: &str, x, y, width, height| glovebox_sandbox::MonitorSpec { name: name.into(), x, y, width, height, primary: false };
    let r = sandbox.set_monitors(&[spec("LEFT", 0, 0, 1280, 1024), spec("RIGHT", 1280, 0, 640, 800)]);
    println!("{r:?}");
    let out = sandbox.command("xrandr").arg("--listmonitors").output().unwrap();
    println!("{}", String::from_utf8_lossy(&out.stdout));
}
