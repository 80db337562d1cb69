//! What the host needs to know of processes (the table itself is the platform's): parents (for the self-target
//! rule), owners (for elevated targets) and executables (for the deny list).

use std::collections::HashMap;
use std::path::PathBuf;

/// Reads what the host asks of a process. Every answer is `None` when the
/// process is gone or cannot be read.
pub trait ProcessTable: Send + Sync {
    /// The pid of the process's parent.
    fn parent(&self, pid: u32) -> Option<u32>;
    /// The uid the process runs as.
    fn owner_uid(&self, pid: u32) -> Option<u32>;
    /// The path of the program the process runs.
    fn executable(&self, pid: u32) -> Option<PathBuf>;
    /// The kernel's short name of the process (`comm`).
    fn name(&self, pid: u32) -> Option<String>;
}

/// Processes as a caller declares them (pid → parent, owner uid,
/// executable), for hosts over the fake desktop in tests.
#[derive(Debug, Default, Clone)]
pub struct DeclaredProcesses(HashMap<u32, (u32, u32, PathBuf)>);

impl DeclaredProcesses {
    /// From `(pid, parent, uid, executable)` rows.
    pub fn new<'a>(rows: impl IntoIterator<Item = (u32, u32, u32, &'a str)>) -> DeclaredProcesses {
        let mut table = DeclaredProcesses::default();
        for (pid, parent, uid, executable) in rows {
            table.insert(pid, parent, uid, executable);
        }
        table
    }

    /// Declares process `pid`, replacing an earlier declaration of it.
    pub fn insert(&mut self, pid: u32, parent: u32, uid: u32, executable: &str) {
        self.0.insert(pid, (parent, uid, PathBuf::from(executable)));
    }
}

impl ProcessTable for DeclaredProcesses {
    fn parent(&self, pid: u32) -> Option<u32> {
        self.0.get(&pid).map(|p| p.0)
    }
    fn owner_uid(&self, pid: u32) -> Option<u32> {
        self.0.get(&pid).map(|p| p.1)
    }
    fn executable(&self, pid: u32) -> Option<PathBuf> {
        self.0.get(&pid).map(|p| p.2.clone())
    }
    fn name(&self, pid: u32) -> Option<String> {
        self.0.get(&pid).and_then(|p| p.2.file_name()).map(|n| n.to_string_lossy().into_owned())
    }
}

/// The ancestors of `pid`, nearest first, up to (not including) pid 1.
pub fn ancestors(table: &dyn ProcessTable, pid: u32) -> Vec<u32> {
    let mut out = vec![];
    let mut current = pid;
    while let Some(parent) = table.parent(current) {
        if parent <= 1 || out.contains(&parent) || out.len() > 256 {
            break;
        }
        out.push(parent);
        current = parent;
    }
    out
}
