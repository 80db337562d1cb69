//! Freshness: which frame an input, a read of values or a crop may use.
//! One rule for all three: the bound window's newest frame, made under
//! the grant's current revision and younger than the frame lifetime. An
//! expired frame is `COMPUTER_STALE_REF` everywhere (the frame is what went
//! stale; the grant did not move), and ends there.

use glovebox_model::{ElementId, ErrorCode, FrameId, Refusal, WindowId};
use std::time::Duration;

/// What the grant says when a frame is presented.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GrantNow {
    pub revision: u64,
    /// The window it is bound to.
    pub bound: Option<WindowId>,
}

/// What the frame store says of the frame presented.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FrameNow {
    pub revision: u64,
    pub window: WindowId,
    /// Time since it was made.
    pub age: Duration,
}

/// Why a frame may not be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stale {
    NoGrant,
    /// Not the bound window's newest (an input ended it, or it never existed).
    NotNewest,
    /// The grant was rebound (another window or revision) after it.
    Rebound,
    /// Older than the frame lifetime: it ends now.
    Expired,
}

impl Stale {
    pub(crate) fn refusal(self, frame_id: FrameId, ttl: Duration) -> Refusal {
        match self {
            Stale::NoGrant => Refusal::new(ErrorCode::NoGrant, "there is no grant; observe first"),
            Stale::NotNewest => Refusal::new(
                ErrorCode::StaleRef,
                format!(
                    "frame {frame_id} is not the newest frame of the bound window (an input ended it, or it never existed); observe again and use the new ids"
                ),
            ),
            Stale::Rebound => Refusal::new(ErrorCode::StaleRevision, "the grant was rebound after this frame; observe again"),
            Stale::Expired => Refusal::new(ErrorCode::StaleRef, format!("frame {frame_id} expired after {} s; observe again", ttl.as_secs())),
        }
    }
}

/// The freshness rule (module doc): `frame` as the store holds it (what
/// it says of the frame, and the frame itself, handed back when fresh).
pub(crate) fn check_frame<T>(
    grant: Option<GrantNow>,
    frame: Option<(FrameNow, T)>,
    ttl: Duration,
) -> Result<T, Stale> {
    let grant = grant.ok_or(Stale::NoGrant)?;
    let (now, frame) = frame.ok_or(Stale::NotNewest)?;
    if now.revision != grant.revision || grant.bound != Some(now.window) {
        return Err(Stale::Rebound);
    }
    if now.age > ttl {
        return Err(Stale::Expired);
    }
    Ok(frame)
}

/// An element id names something of the frame presented, or nothing at all.
pub(crate) fn check_element(
    frame_id: FrameId,
    id: ElementId,
    in_frame: bool,
) -> Result<(), Refusal> {
    match in_frame {
        true => Ok(()),
        false => Err(not_in_frame(frame_id, id)),
    }
}

/// Element `id` is not one of frame `frame_id`'s.
pub(crate) fn not_in_frame(frame_id: FrameId, id: ElementId) -> Refusal {
    Refusal::new(
        ErrorCode::StaleRef,
        format!("{id} is not in frame {frame_id}; observe again and use the new ids"),
    )
}

/// A look approved for window `asked` reads it only if the grant is still
/// bound there once the person answered (other calls ran meanwhile).
pub(crate) fn check_still_bound(asked: WindowId, bound: Option<WindowId>) -> Result<(), Refusal> {
    match bound == Some(asked) {
        true => Ok(()),
        false => Err(Refusal::new(
            ErrorCode::StaleRevision,
            "the grant moved to another window while the user was asked; observe again",
        )),
    }
}

/// What an action's result says when no look after it was asked for.
pub(crate) fn no_look_after() -> Refusal {
    Refusal::new(
        ErrorCode::StaleRef,
        "no observation was asked for after this action; observe for the next frame",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const TTL: Duration = Duration::from_secs(60);
    fn window(n: u32) -> WindowId {
        WindowId { pid: 1, handle: n }
    }
    fn grant() -> Option<GrantNow> {
        Some(GrantNow { revision: 3, bound: Some(window(7)) })
    }
    fn frame(revision: u64, w: u32, age: u64) -> Option<(FrameNow, ())> {
        Some((FrameNow { revision, window: window(w), age: Duration::from_secs(age) }, ()))
    }

    #[test]
    fn only_the_bound_windows_newest_unexpired_frame_is_fresh() {
        assert_eq!(check_frame(grant(), frame(3, 7, 59), TTL), Ok(()));
        assert_eq!(check_frame(None, frame(3, 7, 0), TTL), Err(Stale::NoGrant));
        assert_eq!(check_frame::<()>(grant(), None, TTL), Err(Stale::NotNewest));
        assert_eq!(check_frame(grant(), frame(2, 7, 0), TTL), Err(Stale::Rebound));
        assert_eq!(check_frame(grant(), frame(3, 8, 0), TTL), Err(Stale::Rebound));
        assert_eq!(check_frame(grant(), frame(3, 7, 61), TTL), Err(Stale::Expired));
        // One code for an expired frame, whoever presents it.
        assert_eq!(Stale::Expired.refusal(FrameId(4), TTL).code, ErrorCode::StaleRef);
        assert_eq!(Stale::Rebound.refusal(FrameId(4), TTL).code, ErrorCode::StaleRevision);
        assert!(check_still_bound(window(7), Some(window(7))).is_ok());
        assert_eq!(
            check_still_bound(window(7), Some(window(8))).unwrap_err().code,
            ErrorCode::StaleRevision
        );
        assert_eq!(
            check_element(FrameId(4), ElementId::tree(9).unwrap(), false).unwrap_err().code,
            ErrorCode::StaleRef
        );
    }
}
