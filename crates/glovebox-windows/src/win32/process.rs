//! The process table on Windows: parents and executable names from a
//! Toolhelp snapshot, paths from `QueryFullProcessImageNameW`, owners and
//! integrity levels from the process's token.
//!
//! glovebox's uid on Windows is 0 for the user glovebox runs as (as
//! `glovebox_services::os::current_uid` says), and another user's relative
//! id (the last part of the SID: 18 for SYSTEM, 1001 for a second
//! account), so the host's rule for other users' windows holds unchanged.

use glovebox_platform::process::ProcessTable;
use std::path::PathBuf;
use windows::Win32::Foundation::{CloseHandle, HANDLE};
use windows::Win32::Security::{
    EqualSid, GetSidSubAuthority, GetSidSubAuthorityCount, GetTokenInformation,
    TokenIntegrityLevel, TokenUser, PSID, TOKEN_MANDATORY_LABEL, TOKEN_QUERY, TOKEN_USER,
};
use windows::Win32::System::Diagnostics::ToolHelp::{
    CreateToolhelp32Snapshot, Process32FirstW, Process32NextW, PROCESSENTRY32W, TH32CS_SNAPPROCESS,
};
use windows::Win32::System::Threading::{
    GetCurrentProcessId, OpenProcess, OpenProcessToken, QueryFullProcessImageNameW,
    PROCESS_NAME_WIN32, PROCESS_QUERY_LIMITED_INFORMATION,
};

/// A handle closed when dropped.
struct Owned(HANDLE);

impl Drop for Owned {
    fn drop(&mut self) {
        // SAFETY: the handle was opened by this module and is closed once.
        let _ = unsafe { CloseHandle(self.0) };
    }
}

fn open(pid: u32) -> Option<Owned> {
    // SAFETY: asks for the least access a query needs; the handle is owned.
    unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid) }.ok().map(Owned)
}

fn token(pid: u32) -> Option<Owned> {
    let process = open(pid)?;
    let mut token = HANDLE::default();
    // SAFETY: `token` outlives the call and is owned once filled.
    unsafe { OpenProcessToken(process.0, TOKEN_QUERY, &mut token) }.ok()?;
    Some(Owned(token))
}

/// One class of a token's information, in a buffer of the size it asks for.
fn token_information(
    token: &Owned,
    class: windows::Win32::Security::TOKEN_INFORMATION_CLASS,
) -> Option<Vec<u64>> {
    let mut needed = 0u32;
    // SAFETY: the first call only reports the size it needs.
    let _ = unsafe { GetTokenInformation(token.0, class, None, 0, &mut needed) };
    if needed == 0 || needed > 64 * 1024 {
        return None;
    }
    // u64s keep the buffer aligned for the structure read out of it.
    let mut buffer = vec![0u64; (needed as usize).div_ceil(8)];
    // SAFETY: the buffer is `needed` bytes or more and lives past the call.
    unsafe {
        GetTokenInformation(token.0, class, Some(buffer.as_mut_ptr().cast()), needed, &mut needed)
    }
    .ok()?;
    Some(buffer)
}

/// The last sub-authority of `sid` (a user's relative id, an integrity level).
///
/// # Safety
/// `sid` must point at a valid SID for the duration of the call.
unsafe fn last_sub_authority(sid: PSID) -> Option<u32> {
    // SAFETY: the caller vouches for `sid`; the count is read before indexing.
    unsafe {
        let count = *GetSidSubAuthorityCount(sid);
        (count > 0).then(|| *GetSidSubAuthority(sid, count as u32 - 1))
    }
}

/// The integrity level of process `pid` (`0x2000` medium, `0x3000` high,
/// `0x4000` system); `None` when it cannot be read.
pub(crate) fn integrity(pid: u32) -> Option<u32> {
    let token = token(pid)?;
    let buffer = token_information(&token, TokenIntegrityLevel)?;
    // SAFETY: the buffer holds a TOKEN_MANDATORY_LABEL whose SID points
    // inside the same buffer, which lives to the end of this block.
    unsafe {
        let label = &*(buffer.as_ptr() as *const TOKEN_MANDATORY_LABEL);
        last_sub_authority(label.Label.Sid)
    }
}

/// This process's own integrity level.
pub(crate) fn own_integrity() -> Option<u32> {
    // SAFETY: no arguments.
    integrity(unsafe { GetCurrentProcessId() })
}

/// The process table.
#[derive(Debug, Default)]
pub(crate) struct Processes;

impl Processes {
    fn entry(&self, pid: u32) -> Option<PROCESSENTRY32W> {
        // SAFETY: the snapshot handle is owned and closed on return.
        let snapshot = Owned(unsafe { CreateToolhelp32Snapshot(TH32CS_SNAPPROCESS, 0) }.ok()?);
        let mut entry = PROCESSENTRY32W {
            dwSize: std::mem::size_of::<PROCESSENTRY32W>() as u32,
            ..Default::default()
        };
        // SAFETY: `entry` says its own size and outlives each call.
        let mut more = unsafe { Process32FirstW(snapshot.0, &mut entry) }.is_ok();
        while more {
            if entry.th32ProcessID == pid {
                return Some(entry);
            }
            // SAFETY: as above.
            more = unsafe { Process32NextW(snapshot.0, &mut entry) }.is_ok();
        }
        None
    }

    fn user_rid(&self, pid: u32) -> Option<(u32, bool)> {
        let theirs = token(pid)?;
        // SAFETY: no arguments.
        let ours = token(unsafe { GetCurrentProcessId() })?;
        let their_user = token_information(&theirs, TokenUser)?;
        let our_user = token_information(&ours, TokenUser)?;
        // SAFETY: each buffer holds a TOKEN_USER whose SID points inside
        // that buffer; both live to the end of this block.
        unsafe {
            let their_sid = (*(their_user.as_ptr() as *const TOKEN_USER)).User.Sid;
            let our_sid = (*(our_user.as_ptr() as *const TOKEN_USER)).User.Sid;
            let same = EqualSid(their_sid, our_sid).is_ok();
            Some((last_sub_authority(their_sid)?, same))
        }
    }
}

impl ProcessTable for Processes {
    fn parent(&self, pid: u32) -> Option<u32> {
        self.entry(pid).map(|e| e.th32ParentProcessID)
    }

    fn owner_uid(&self, pid: u32) -> Option<u32> {
        self.user_rid(pid).map(|(rid, same)| if same { 0 } else { rid.max(1) })
    }

    fn executable(&self, pid: u32) -> Option<PathBuf> {
        let process = open(pid)?;
        let mut buffer = [0u16; 1024];
        let mut size = buffer.len() as u32;
        // SAFETY: the buffer and its size outlive the call, which writes at most `size` units.
        unsafe {
            QueryFullProcessImageNameW(
                process.0,
                PROCESS_NAME_WIN32,
                windows::core::PWSTR(buffer.as_mut_ptr()),
                &mut size,
            )
        }
        .ok()?;
        Some(PathBuf::from(String::from_utf16_lossy(&buffer[..size as usize])))
    }

    fn name(&self, pid: u32) -> Option<String> {
        let entry = self.entry(pid)?;
        let end = entry.szExeFile.iter().position(|&c| c == 0).unwrap_or(entry.szExeFile.len());
        Some(String::from_utf16_lossy(&entry.szExeFile[..end]))
    }
}
