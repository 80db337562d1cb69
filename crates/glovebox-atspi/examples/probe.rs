use glovebox_atspi::transport::*;
fn main() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    rt.block_on(async {
        let bus = Bus::connect().await.unwrap();
        bus.listen_for_children_changes().await.unwrap();
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let apps = bus.applications().await.unwrap();
        for app in apps {
            let pid = bus.pid_of(&app.bus).await;
            let t = std::time::Instant::now();
            let items = bus.cache_items(&app.bus).await;
            let el = t.elapsed();
            match items {
                Ok(items) => {
                    println!("{app} pid {pid:?} cache {} items in {el:?}", items.len());
                    for i in items.iter().take(400) { println!("  {} parent {} idx {} n {} role {} {:?} ifaces {:?} states {:?}", i.object.path.as_str(), i.parent.path.as_str(), i.index_in_parent, i.child_count, i.role, i.name, i.interfaces.len(), i.states); }
                }
                Err(e) => println!("{app} pid {pid:?} cache error {e}"),
            }
        }
    });
}
