//! Locks that outlive a panicking holder.
//!
//! glovebox's mutexes guard caches, queues and counters whose every update
//! is one assignment or one collection operation: a thread that panics while
//! holding one leaves the data whole. Refusing every later call because of
//! that panic would turn one failed call into a dead host, so a poisoned lock
//! is taken as it is.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// [`Mutex::lock`] that takes a poisoned lock as it is.
pub trait LockRecovered<T> {
    /// Locks, and takes the data a panicking holder left as it is.
    fn lock_recovered(&self) -> MutexGuard<'_, T>;
}

impl<T> LockRecovered<T> for Mutex<T> {
    fn lock_recovered(&self) -> MutexGuard<'_, T> {
        self.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lock_poisoned_by_a_panic_is_still_taken() {
        let shared = std::sync::Arc::new(Mutex::new(1));
        let holder = shared.clone();
        let _ = std::thread::spawn(move || {
            let _guard = holder.lock().unwrap();
            panic!("the holder fails");
        })
        .join();
        assert!(shared.lock().is_err(), "the lock is poisoned");
        *shared.lock_recovered() += 1;
        assert_eq!(*shared.lock_recovered(), 2);
    }
}
