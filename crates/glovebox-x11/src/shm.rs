//! The one module with unsafe code: a memfd mapped into this process and
//! attached to the X server (MIT-SHM `AttachFd`), so the server writes
//! captured pixels straight into our memory instead of through the socket.
//!
//! Unsafe is needed for `mmap`/`munmap` and for viewing the mapping as a
//! slice. Soundness rests on: the mapping is private to this value, lives
//! until drop, is only read after the server's reply to the request that
//! wrote it has arrived, and is never handed out beyond that borrow.
#![allow(unsafe_code)]

use glovebox_platform::BackendError;
use rustix::fs::{ftruncate, memfd_create, MemfdFlags};
use rustix::mm::{mmap, munmap, MapFlags, ProtFlags};
use std::os::fd::OwnedFd;
use std::ptr::NonNull;
use x11rb::connection::Connection;
use x11rb::protocol::shm::ConnectionExt as _;
use x11rb::rust_connection::RustConnection;

pub(crate) struct SharedSegment {
    pub(crate) id: u32,
    map: NonNull<u8>,
    len: usize,
    _fd: OwnedFd,
}

// SAFETY: the mapping is owned by this value alone and carries no thread affinity.
unsafe impl Send for SharedSegment {}

impl SharedSegment {
    /// Creates a segment of `len` bytes and attaches it on `conn`.
    pub(crate) fn attach(conn: &RustConnection, len: usize) -> Result<SharedSegment, BackendError> {
        let fail = |what: &str, e: &dyn std::fmt::Display| {
            BackendError::unavailable(format!("MIT-SHM {what}: {e}"))
        };
        let fd = memfd_create("glovebox-capture", MemfdFlags::CLOEXEC)
            .map_err(|e| fail("memfd_create", &e))?;
        ftruncate(&fd, len as u64).map_err(|e| fail("ftruncate", &e))?;
        // SAFETY: a fresh shared mapping of a memfd we own, of exactly its length.
        let ptr = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &fd,
                0,
            )
        }
        .map_err(|e| fail("mmap", &e))?;
        let map = NonNull::new(ptr.cast::<u8>()).ok_or_else(|| fail("mmap", &"null mapping"))?;
        let mut segment = SharedSegment { id: 0, map, len, _fd: fd };
        let id = conn.generate_id().map_err(|e| fail("id", &e))?;
        let server_fd = segment._fd.try_clone().map_err(|e| fail("dup", &e))?;
        conn.shm_attach_fd(id, server_fd, false)
            .map_err(|e| fail("attach", &e))?
            .check()
            .map_err(|e| fail("attach", &e))?;
        segment.id = id;
        Ok(segment)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The first `len` bytes, as the server last wrote them.
    pub(crate) fn bytes(&self, len: usize) -> &[u8] {
        let len = len.min(self.len);
        // SAFETY: within the live mapping; the borrow of `self` keeps it mapped,
        // and callers read only after the server's reply for the write.
        unsafe { std::slice::from_raw_parts(self.map.as_ptr(), len) }
    }

    pub(crate) fn detach(self, conn: &RustConnection) {
        let _ = conn.shm_detach(self.id);
    }
}

impl Drop for SharedSegment {
    fn drop(&mut self) {
        // SAFETY: unmaps exactly the mapping created in `attach`, once.
        let _ = unsafe { munmap(self.map.as_ptr().cast(), self.len) };
    }
}
